// module.js
