// Imports every module that registers a write listener, so the writer thread and the inline writer see the same
// listeners. A domain that keeps aggregates adds its module here.
import '../reports/rollup/rollup-listener.ts';
