/*
 * asgst_replay.c - build/bin/asgst-replay: walks recordings (ASGST_RecordWalk) again with
 * no JVM and prints their frames, or (--check) compares each replay with the frames the
 * live walk produced, frame by frame: type, tier, bci, method, pc/sp/fp, name and line,
 * and the code the walk ended with.
 *   asgst-replay FILE            prints the replayed frames
 * A file may hold several recordings one after the other (the demo profiler's record=).
 *   asgst-replay --check FILE... one line per recording, then "replayed N: I identical, D differ,
 *                                F failed"; exit status 0 only if every file is identical
 * A replay maps the recorded pages at their recorded addresses. Where this process's own
 * mappings already hold one (address randomization put a library, the heap or a stack
 * there: ASGST_BUSY), that recording is replayed again by a new process of this program,
 * which gets another layout (internal options --only K, --print).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "asgst.h"
#include "impl/record/format.h"

#define MAX_FRAMES 2048
#define TRIES 3        /* new processes tried for a recording whose pages collide */
#define EXIT_BUSY 3    /* a --only replay's status when its pages collided again */

extern char **environ;
static int only = -1;  /* --only K: replay recording K of the one file, no summary */

typedef struct {
  asgst__rec_frame frames[MAX_FRAMES];
  char names[MAX_FRAMES][600];
  int n, end;
} replayed;

/* N. Reads a whole file; NULL (and a message) on failure. */
static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return perror(path), NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n > 0 ? malloc((size_t)n) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
  fclose(f);
  if (buf == NULL) fprintf(stderr, "%s: cannot read\n", path);
  *len = (size_t)n;
  return buf;
}

/* N. "Lpkg/Class; name (signature)" of method m, from the replayed memory. */
static void name_of(ASGST_Method m, char *out, size_t cap) {
  char cls[256] = "", name[256] = "", sig[512] = "";
  ASGST_MethodInfo mi = {0};
  mi.method_name = name, mi.method_name_length = sizeof name;
  mi.signature = sig, mi.signature_length = sizeof sig;
  ASGST_GetMethodInfo(m, &mi);
  ASGST_ClassInfo ci = {0};
  ci.class_name = cls, ci.class_name_length = sizeof cls;
  if (mi.klass) ASGST_GetClassInfo(mi.klass, &ci);
  snprintf(out, cap, "L%s; %s %s", cls, name, sig);
}

/* N. The iterator handler: every frame with its name and line. */
static void collect(ASGST_Iterator *it, void *arg) {
  replayed *r = arg;
  ASGST_Frame f;
  int rc = 0;
  r->n = 0;
  while (r->n < MAX_FRAMES && (rc = ASGST_NextFrame(it, &f)) == 1) {
    asgst__rec_frame *o = &r->frames[r->n];
    memset(o, 0, sizeof *o);
    o->type = f.type, o->comp_level = f.comp_level, o->bci = f.bci, o->line = -1;
    o->method = (uintptr_t)f.method, o->pc = (uintptr_t)f.pc, o->sp = (uintptr_t)f.sp, o->fp = (uintptr_t)f.fp;
    r->names[r->n][0] = '\0';
    if (f.method) {
      name_of(f.method, r->names[r->n], sizeof r->names[0]);
      if (f.bci >= 0) o->line = ASGST_GetMethodLineNumber(f.method, f.bci);
    }
    r->n++;
  }
  r->end = r->n == MAX_FRAMES ? ASGST_State(it) : rc;
}

/* N. First difference between the live frames and the replay, or NULL. */
static const char *differs(const asgst__rec_header *h, const asgst__rec_frame *live, const char *strings,
                           const replayed *r, char *why, size_t cap) {
  if ((int)h->nframes != r->n)
    return snprintf(why, cap, "%u live frames ending with %s, %d replayed ending with %s", h->nframes,
                    ASGST_ErrorName(h->end), r->n, ASGST_ErrorName(r->end)), why;
  for (int i = 0; i < r->n; i++) {
    const asgst__rec_frame *a = &live[i], *b = &r->frames[i];
    char name[600];
    snprintf(name, sizeof name, "%.*s", (int)a->name_len, strings + a->name_off);
    if (a->type != b->type || a->comp_level != b->comp_level || a->bci != b->bci || a->method != b->method ||
        a->pc != b->pc || a->sp != b->sp || a->fp != b->fp || a->line != b->line || strcmp(name, r->names[i]))
      return snprintf(why, cap, "frame %d: live %s@%d line %d type %d, replay %s@%d line %d type %d", i, name,
                      a->bci, a->line, a->type, r->names[i], b->bci, b->line, b->type), why;
  }
  if (h->end != r->end) return snprintf(why, cap, "live walk ended with %s, replay with %s", ASGST_ErrorName(h->end),
                                        ASGST_ErrorName(r->end)), why;
  return NULL;
}

/* N. Replays recording k of path in a new process (another address layout); its outcome
 * as replay_one's, or -1 if every try collided too or none could run. */
static int replay_elsewhere(const char *path, int k, bool check) {
  char idx[16];
  snprintf(idx, sizeof idx, "%d", k);
  char *args[] = {"asgst-replay", check ? "--check" : "--print", "--only", idx, (char *)path, NULL};
  for (int t = 0; t < TRIES; t++) {
    fflush(stdout);
    pid_t pid;
    int st;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0) return -1;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    if (WEXITSTATUS(st) != EXIT_BUSY) return WEXITSTATUS(st) <= 2 ? WEXITSTATUS(st) : 2;
  }
  return -1;
}

/* N. Replays recording k of path; 0 identical (or printed), 1 differs, 2 failed, EXIT_BUSY
 * (--only) its pages collided with this process's mappings. */
static int replay_one(const uint8_t *rec, size_t len, const char *path, int k, const char *label,
                      bool check, replayed *r) {
  int kind = ASGST_ReplayWalk(rec, len, collect, r);
  const asgst__rec_header *h = (const asgst__rec_header *)(const void *)rec;
  if (kind <= 0 && (len < sizeof *h || h->kind > 0)) {
    if (kind == ASGST_BUSY) {
      if (only >= 0) return EXIT_BUSY;
      int again = replay_elsewhere(path, k, check);
      if (again >= 0) return again;
    }
    printf("FAILED %s: %s %s\n", label, ASGST_ErrorName(kind), ASGST_ReplayError());
    return 2;
  }
  if (check) {
    const uint8_t *p = rec + asgst__rec_pad8(sizeof *h) + asgst__rec_pad8(h->layout_len);
    const asgst__rec_frame *live = (const asgst__rec_frame *)(const void *)p;
    const char *strings = (const char *)(p + asgst__rec_pad8((uint64_t)h->nframes * sizeof *live));
    char why[1500];
    if (kind <= 0) r->n = 0, r->end = kind;
    const char *d = kind == h->kind ? differs(h, live, strings, r, why, sizeof why) : "different trace kind";
    printf("%s %s (%u frames, %u pages)%s%s\n", d ? "DIFFERS" : "ok", label, h->nframes, h->npages,
           d ? ": " : "", d ? d : "");
    return d ? 1 : 0;
  }
  printf("%s:\n", label);
  for (int i = 0; i < r->n; i++)
    printf("%3d %s bci=%d line=%d tier=%d type=%d\n", i, r->names[i], r->frames[i].bci, r->frames[i].line,
           r->frames[i].comp_level, r->frames[i].type);
  printf("end: %s\n", ASGST_ErrorName(r->end));
  return 0;
}

/* N. Replays every recording of a file (the demo profiler's record= file holds several,
 * one after the other), or only recording `only`; adds the outcomes to counts. */
static void replay_file(const char *path, bool check, replayed *r, int counts[4]) {
  size_t len;
  uint8_t *rec = read_file(path, &len);
  if (rec == NULL) {
    counts[2]++;
    return;
  }
  size_t off = 0;
  for (int k = 0; off < len; k++) {
    const asgst__rec_header *h = (const asgst__rec_header *)(const void *)(rec + off);
    size_t left = len - off, one = left;
    /* A well-formed size splits the file; anything else goes whole to the replay's checks. */
    if (left >= sizeof *h && h->total_size >= sizeof *h && h->total_size <= left) one = (size_t)h->total_size;
    char label[1200];
    if (off == 0 && one == len) snprintf(label, sizeof label, "%s", path);
    else snprintf(label, sizeof label, "%s#%d", path, k);
    if (only < 0 || k == only) counts[replay_one(rec + off, one, path, k, label, check, r)]++;
    off += one;
  }
  free(rec);
}

int main(int argc, char **argv) {
  bool check = argc > 1 && strcmp(argv[1], "--check") == 0;
  int first = 1 + (check || (argc > 1 && strcmp(argv[1], "--print") == 0));
  if (argc > first + 2 && strcmp(argv[first], "--only") == 0) {
    only = atoi(argv[first + 1]);
    first += 2;
  }
  if (argc < first + 1) {
    fprintf(stderr, "usage: asgst-replay [--check] RECORDING...\n");
    return 2;
  }
  static replayed r;
  int counts[4] = {0}; /* by replay_one's outcome */
  for (int i = first; i < argc; i++) replay_file(argv[i], check, &r, counts);
  if (only >= 0) { /* the exit status is the outcome; 2 if recording K is not in the file */
    for (int o = 0; o < 4; o++)
      if (counts[o]) return o;
    return 2;
  }
  if (check)
    printf("replayed %d: %d identical, %d differ, %d failed\n", counts[0] + counts[1] + counts[2], counts[0],
           counts[1], counts[2]);
  return counts[1] || counts[2] ? 1 : 0;
}
