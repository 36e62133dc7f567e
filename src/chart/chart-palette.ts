/**
 * The chart's colours: Okabe and Ito's palette, told apart with every common colour-vision deficiency, on an opaque
 * white background so the picture reads the same in Slack's light and dark themes.
 */
export const OKABE_ITO = {
  black: "#000000",
  orange: "#E69F00",
  skyBlue: "#56B4E9",
  bluishGreen: "#009E73",
  yellow: "#F0E442",
  blue: "#0072B2",
  vermillion: "#D55E00",
  reddishPurple: "#CC79A7",
} as const;

export const CHART_COLORS = {
  background: "#FFFFFF",
  text: "#1A1A1A",
  mutedText: "#555555",
  grid: "#E3E3E3",
  down: OKABE_ITO.vermillion,
  settling: OKABE_ITO.yellow,
  settlingBorder: "#8A7F00",
  onTarget: OKABE_ITO.bluishGreen,
  eagerWindow: "rgba(213, 94, 0, 0.16)",
  eagerWindowBorder: "rgba(213, 94, 0, 0.7)",
  paceWindow: "rgba(86, 180, 233, 0.2)",
  paceWindowBorder: "rgba(0, 114, 178, 0.7)",
  deadline: OKABE_ITO.black,
  approval: OKABE_ITO.blue,
  notRunning: OKABE_ITO.vermillion,
  notFlowing: OKABE_ITO.reddishPurple,
  stepStart: "#8C8C8C",
} as const;

/**
 * Arial's metrics, which ECharts assumes when it lays text out without a browser: Liberation Sans on Debian (the Docker
 * image installs it), Arial or Helvetica elsewhere; DejaVu Sans for any glyph they lack.
 */
export const CHART_FONT = "Liberation Sans, Arial, Helvetica, DejaVu Sans, sans-serif";
