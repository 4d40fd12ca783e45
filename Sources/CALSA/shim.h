#ifndef TONEARM_CALSA_SHIM_H
#define TONEARM_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
