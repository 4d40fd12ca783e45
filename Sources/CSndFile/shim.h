#ifndef TONEARM_CSNDFILE_SHIM_H
#define TONEARM_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
