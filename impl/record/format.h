/*
 * format.h - the recording file format (version 1): one walk of a live JVM with everything
 * it read, so that the unchanged HotSpot walker can run over it again without a JVM.
 *
 * Little-endian, laid out as written, every section 8-byte aligned:
 *   rec_header                  fixed size (header_size), magic "ASGSTREC", version 1
 *   layout text                 layout_len bytes: the VM layout the walk used, as text
 *                               lines (see below), padded to 8
 *   rec_frame[nframes]          the frames the live walk returned, callee first
 *   strings                     strings_len bytes: the frames' names, padded to 8
 *   uint64_t absent[nabsent]    pages the walk tried to read that could not be copied
 *                               (they fault again in the replay)
 *   rec_page[npages]            every other page the walk and the metadata of its frames
 *                               read, whole (PAGE bytes), sorted by address
 * total_size is the sum; a file of another size is damaged.
 *
 * Layout text: the lines of the vmStructs dump format that the HotSpot model looked up,
 * with the name it resolved ("STRUCT Type::field offset=N type=T", "STRUCT Type::field
 * static addr=0xA type=T", "TYPE name size=N", "INT name = N"), so the replay builds the
 * model by name exactly as a live VM does; and "VALUE name = N" lines for facts the binding
 * read from the live VM rather than from the tables (the JDK feature version, the mirror's
 * klass field offset, the mirror's modifiers field offset).
 */
#ifndef ASGST_RECORD_FORMAT_H
#define ASGST_RECORD_FORMAT_H

#include <stdint.h>

#define ASGST__REC_MAGIC "ASGSTREC"
#define ASGST__REC_VERSION 1
#define ASGST__REC_PAGE 4096

typedef struct {
  char magic[8];
  uint32_t version;
  uint32_t header_size;   /* sizeof(rec_header) of the writer */
  uint64_t total_size;    /* bytes of the whole recording */
  int32_t options;        /* the walk's ASGST options */
  int32_t kind;           /* what the live walk's start returned (trace kind or error) */
  int32_t end;            /* the code the live walk's last ASGST_NextFrame returned */
  uint32_t nframes;
  uint64_t pc, sp, fp;    /* the registers the walk started from */
  uint64_t vm_thread, stack_base, stack_limit;
  uint32_t layout_len, strings_len;
  uint32_t nabsent, npages;
} asgst__rec_header;

typedef struct {
  uint8_t type;           /* ASGST_FRAME_* */
  uint8_t pad[3];
  int32_t comp_level;
  int32_t bci;
  int32_t line;           /* ASGST_GetMethodLineNumber at bci, -1 if none */
  uint64_t method, pc, sp, fp;
  uint32_t name_off;      /* "Lpkg/Class; name (signature)" in the strings section */
  uint32_t name_len;
} asgst__rec_frame;

typedef struct {
  uint64_t addr;
  uint8_t bytes[ASGST__REC_PAGE];
} asgst__rec_page;

/* Bytes to the next multiple of 8. */
static inline uint64_t asgst__rec_pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

#endif
