#ifndef TONEARM_ALLOC_COUNTER_H
#define TONEARM_ALLOC_COUNTER_H
/// Test-only: counts malloc/calloc/realloc/posix_memalign/aligned_alloc calls made by the
/// calling thread while counting is on. The interposed functions forward to glibc.
void alloc_counter_begin(void);
/// Stops counting on the calling thread and returns the number of allocations seen.
long alloc_counter_end(void);
#endif
