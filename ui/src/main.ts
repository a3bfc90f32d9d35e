import { mount } from 'svelte';
import App from './App.svelte';
import { applyTheme, applyZoom, savedTheme, savedZoom } from './lib/a11y/display';
import './app.css';

// The theme and zoom chosen on this computer, before the first paint where possible.
applyTheme(savedTheme());
const zoom = savedZoom();
if (zoom !== 1) {
  applyZoom(zoom).catch((e: unknown) => {
    // The page still works at 100%; the next Ctrl+= tries again and says why it failed.
    console.warn('Verity could not restore the zoom:', e);
  });
}

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element.');
export default mount(App, { target });
