// preloaded.js
