#ifndef TONEARM_CALSA_SHIM_H
#define TONEARM_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA's error handler is variadic, so Swift cannot provide one. This no-op handler
   and its installer keep ALSA from printing to stderr; callers report errors themselves
   (snd_strerror of the returned code). */
static inline void tonearm_alsa_quiet_error_handler(const char *file, int line, const char *function,
                                                    int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Installs the no-op handler process-wide. Returns snd_lib_error_set_handler's result. */
static inline int tonearm_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(tonearm_alsa_quiet_error_handler);
}
#endif
