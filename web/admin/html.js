// Preact through htm: tagged templates instead of a JSX step. Values are rendered as text (never as markup).
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
