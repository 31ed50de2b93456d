import { Badge, createTheme, type MantineColorsTuple } from '@mantine/core';

// A warm ember orange: the colour of a fire in the hearth, deep enough for white text on buttons.
const hearth: MantineColorsTuple = [
  '#fff3ed',
  '#fde4d8',
  '#f8c6ae',
  '#f3a681',
  '#ee8a5b',
  '#eb7842',
  '#e96e34',
  '#cf5d27',
  '#b95220',
  '#a14416',
];

export const theme = createTheme({
  primaryColor: 'hearth',
  primaryShade: { light: 8, dark: 7 },
  colors: { hearth },
  defaultRadius: 'md',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji"',
  headings: { fontWeight: '650' },
  cursorType: 'pointer',
  components: {
    // Sentence-case badges read calmer than Mantine's default capitals.
    Badge: Badge.extend({ styles: { root: { textTransform: 'none', fontWeight: 600 } } }),
  },
});
