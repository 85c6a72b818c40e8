// module-dep.js
