/**
 * Preloaded (`node -r`) into every service process the fault run starts: exits the service when
 * the process that started it (env FAULT_PARENT_PID) is gone, so a fault run that dies without
 * tearing down leaves no API, relay or projector behind.
 */
'use strict';
const parent = Number(process.env.FAULT_PARENT_PID);
if (parent > 0) {
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      process.exit(1);
    }
  }, 2000).unref();
}
