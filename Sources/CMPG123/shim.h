#ifndef TONEARM_CMPG123_SHIM_H
#define TONEARM_CMPG123_SHIM_H
/* Never define _FILE_OFFSET_BITS around mpg123.h (DESIGN.md §4). */
#include <sys/types.h>
#include <mpg123.h>
#endif
