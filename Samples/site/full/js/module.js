import './module-dep.js';
