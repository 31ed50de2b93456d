import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server serves dist/index.html, dist/assets/* (as immutable) and dist/favicon.svg, so the
// build keeps Vite's default layout and a root base.
export default defineConfig({
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app, so they get chunks of their own to stay cached.
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|react-router|react-router-dom|scheduler)[\\/]/,
            },
            // @mantine/charts stays out: with recharts it loads only with the Usage page.
            { name: 'mantine', test: /node_modules[\\/]@mantine[\\/](core|hooks|notifications|store)[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/managed-users': 'http://127.0.0.1:8080',
      '/users': 'http://127.0.0.1:8080',
      '/weekly-schedule': 'http://127.0.0.1:8080',
    },
  },
});
