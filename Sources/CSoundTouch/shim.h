#ifndef TONEARM_CSOUNDTOUCH_SHIM_H
#define TONEARM_CSOUNDTOUCH_SHIM_H
/* SoundTouch's C API (libSoundTouchDll). */
#include <SoundTouchDLL.h>
#endif
