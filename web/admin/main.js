// @ts-check
// The admin UI's entry: renders the app into #app (index.html has no inline script: the CSP forbids it).
import { h, render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (!root) throw new Error('index.html has no element #app');
render(h(App, null), root);
