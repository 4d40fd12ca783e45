#ifndef TONEARM_CJANSSON_SHIM_H
#define TONEARM_CJANSSON_SHIM_H
#include <jansson.h>
#endif
