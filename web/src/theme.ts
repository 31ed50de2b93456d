import {
  Badge,
  type CSSVariablesResolver,
  createTheme,
  DEFAULT_THEME,
  type MantineColorsTuple,
  Modal,
} from '@mantine/core';

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

/** Mantine's palette with some shades swapped: `shades` replaces shades from index `from` on. */
const deepen = (name: string, from: number, shades: string[]) =>
  [...(DEFAULT_THEME.colors[name] ?? []).slice(0, from), ...shades] as unknown as MantineColorsTuple;

// Readable colours (WCAG 2.2 AA: 4.5:1 for text): Mantine's darker shades are what pages write text
// in (`c="red.8"`, a light badge's shade 9 on shade 1, white on a filled shade 8), and several of
// them fall short on white and on the warm page background. These keep each hue and deepen it
// until it reads; the light shades (backgrounds, borders) stay as they were.
const colors = {
  hearth,
  // Shade 6 is "dimmed" text; 4.9:1 on the page background instead of 3.1.
  gray: deepen('gray', 6, ['#5f666d', '#495057', '#343a40', '#212529']),
  red: deepen('red', 6, ['#e03131', '#d42a2a', '#c92a2a', '#a61e1e']),
  teal: deepen('teal', 7, ['#099268', '#087f5b', '#066649']),
  yellow: deepen('yellow', 7, ['#b86e00', '#9a5c00', '#804c00']),
  orange: deepen('orange', 8, ['#c94a0d', '#b93d0c']),
  lime: deepen('lime', 8, ['#5c940d', '#4a7a0a']),
  green: deepen('green', 8, ['#2b8a3e', '#237032']),
};

export const theme = createTheme({
  primaryColor: 'hearth',
  // White on hearth 8 is 4.9:1 (hearth 7 was 4.0:1), in both schemes.
  primaryShade: { light: 8, dark: 8 },
  colors,
  // Filled yellow and other light fills get dark text instead of white.
  autoContrast: true,
  defaultRadius: 'md',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji"',
  headings: { fontWeight: '650' },
  cursorType: 'pointer',
  components: {
    // Sentence-case badges read calmer than Mantine's default capitals.
    Badge: Badge.extend({ styles: { root: { textTransform: 'none', fontWeight: 600 } } }),
    // A dialog's close button is an icon; this gives it a name.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Text colours that read on the pages' backgrounds in both schemes (merged over Mantine's). */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-error': 'var(--mantine-color-red-8)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
