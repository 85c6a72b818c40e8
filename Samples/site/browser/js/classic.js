// classic.js
