#ifndef TONEARM_CSOXR_SHIM_H
#define TONEARM_CSOXR_SHIM_H
#include <soxr.h>
#endif
