import { z } from "zod";

/** The fields of a StatefulSet we read; containers keep every field so a merge-patch can send them back. */
export const StatefulSetSchema = z.object({
  metadata: z.object({ name: z.string(), resourceVersion: z.string().optional() }),
  spec: z.object({
    replicas: z.number().int().nonnegative().optional(),
    updateStrategy: z
      .object({
        type: z.string().optional(),
        rollingUpdate: z.object({ partition: z.number().int().nonnegative().optional() }).nullish(),
      })
      .optional(),
    template: z.object({
      spec: z.object({
        containers: z.array(z.looseObject({ name: z.string(), image: z.string().optional() })),
      }),
    }),
  }),
});
export type StatefulSet = z.infer<typeof StatefulSetSchema>;

export const PodSchema = z.object({
  metadata: z.object({ name: z.string(), uid: z.string().min(1) }),
  spec: z.object({ containers: z.array(z.object({ name: z.string(), image: z.string().optional() })) }),
});
export type Pod = z.infer<typeof PodSchema>;

/** The image of the named container in a pod or template, or null. */
export function containerImage(
  containers: readonly { name: string; image?: string | undefined }[],
  container: string,
): string | null {
  return containers.find((c) => c.name === container)?.image ?? null;
}
