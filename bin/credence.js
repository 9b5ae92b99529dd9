#!/usr/bin/env node
// The installed command runs the compiled service (npm install builds dist/ through the prepare script).
import '../dist/main.js';
