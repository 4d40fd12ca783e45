#ifndef TONEARM_CJANSSON_SHIM_H
#define TONEARM_CJANSSON_SHIM_H
#include <jansson.h>

/* Swift-callable wrappers for jansson's macros and inline helpers.
 * json_typeof / json_is_* are macros and JSON_INDENT / JSON_REAL_PRECISION are
 * function-like macros, none of which import into Swift; json_decref and
 * json_error_code are static inlines, wrapped here so the Swift side does not
 * depend on whether the importer picks them up. */

static inline json_type tonearm_json_typeof(const json_t *json) { return json_typeof(json); }

static inline void tonearm_json_decref(json_t *json) { json_decref(json); }

static inline enum json_error_code tonearm_json_error_code(const json_error_t *error) {
    return json_error_code(error);
}

/* Flags for json_loadb / json_dumpb as plain values. */
static inline size_t tonearm_json_load_flags(void) {
    return JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL;
}

static inline size_t tonearm_json_dump_flags(int indent, int realPrecision) {
    size_t flags = JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(realPrecision);
    if (indent > 0) flags |= JSON_INDENT(indent);
    else flags |= JSON_COMPACT;
    return flags;
}

#endif
