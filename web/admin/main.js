// The admin UI's entry: renders the app into #app (index.html has no inline script: the CSP forbids it).
import { render } from 'preact';
import { html } from './html.js';
import { App } from './app.js';

render(html`<${App} />`, document.getElementById('app'));
