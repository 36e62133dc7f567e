/** The outcome of a control operation: expected refusals are values (the control API maps them to 404/409/400). */
export type ControlResult =
  | { readonly kind: "ok" }
  | { readonly kind: "not-found"; readonly message: string }
  | { readonly kind: "conflict"; readonly message: string }
  | { readonly kind: "invalid"; readonly message: string };
