/*
 * proto_encode.h - the protocol-buffer wire format, for writers that emit it (pprof):
 * varints, length-delimited fields and nested messages built into growable byte
 * buffers. A nested message is built in a buffer of its own and appended with its length.
 *
 * Signal-safety classes as in asgst.h: every function here is N, ordinary code.
 */
#ifndef ASGSTPROF_OUTPUT_PROTO_ENCODE_H
#define ASGSTPROF_OUTPUT_PROTO_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *data;
  size_t len, cap;
  bool failed; /* an allocation failed: the buffer is incomplete */
} pb_buf;

void pb_free(pb_buf *b);                                         /* N */
void pb_clear(pb_buf *b);                                        /* N: empty, memory kept */
void pb_raw_varint(pb_buf *b, uint64_t v);                       /* N: a bare varint */
/* N. A varint field (int64, uint64, bool; negative int64 take ten bytes, as on the wire).
 * Zero is written too: proto3 readers take it as the default either way. */
void pb_varint(pb_buf *b, int field, uint64_t v);
/* N. A length-delimited field: bytes, a string, a packed array or a nested message. */
void pb_bytes(pb_buf *b, int field, const void *data, size_t len);
void pb_string(pb_buf *b, int field, const char *s);             /* N */
void pb_message(pb_buf *b, int field, const pb_buf *msg);        /* N */

#endif /* ASGSTPROF_OUTPUT_PROTO_ENCODE_H */
