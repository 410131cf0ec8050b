/*
 * readelf_frames.h - the independent decoder the call frame table tests compare with:
 * binutils' `readelf --debug-dump=frames-interp` output parsed into FDEs and rows, and a
 * comparison of our rules with it at 2,000 random pcs (>= 99.9% must agree; each
 * difference is printed). Static functions for the test programs that include it.
 */
#ifndef ASGST_TESTS_NATIVE_READELF_FRAMES_H
#define ASGST_TESTS_NATIVE_READELF_FRAMES_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "impl/native/cfi.h"

enum { CFA_SP, CFA_FP, CFA_OTHER, CFA_EXP };

/* readelf's names of the stack and frame pointer registers. */
#if defined(__aarch64__)
#define READELF_SP "sp"
#define READELF_FP "x29"
#else
#define READELF_SP "rsp"
#define READELF_FP "rbp"
#endif

/* readelf's rule at one row: CFA kind + offset; rbp saved at CFA + rbp_off or not. */
struct ref_row {
  uint64_t loc;
  int cfa, rbp_saved;
  long cfa_off, rbp_off;
};

struct ref_fde {
  uint64_t lo, hi;
  size_t first, n; /* rows in the table; n == 0: the CIE's initial rule */
  struct ref_row cie_rule;
};

struct ref {
  struct ref_fde *fdes;
  struct ref_row *rows;
  size_t nfdes, nrows;
};

struct cie_rule {
  unsigned long off;
  struct ref_row row;
};

/* "rsp+8", "rbp+16", "exp", "r10+0" */
static void parse_cfa(const char *tok, struct ref_row *r) {
  const char *sign = strpbrk(tok, "+-");
  r->cfa = CFA_OTHER;
  r->cfa_off = sign ? strtol(sign, NULL, 10) : 0;
  if (sign && !strncmp(tok, READELF_SP, strlen(READELF_SP)) && sign == tok + strlen(READELF_SP))
    r->cfa = CFA_SP;
  if (sign && !strncmp(tok, READELF_FP, strlen(READELF_FP)) && sign == tok + strlen(READELF_FP))
    r->cfa = CFA_FP;
  if (!strcmp(tok, "exp")) r->cfa = CFA_EXP;
}

/* "c-16": saved at CFA - 16; "u", "s", "r12", "exp", ...: not a CFA slot. */
static void parse_rbp(const char *tok, struct ref_row *r) {
  r->rbp_saved = tok && tok[0] == 'c' && (tok[1] == '-' || tok[1] == '+');
  r->rbp_off = r->rbp_saved ? strtol(tok + 1, NULL, 10) : 0;
}

/* Splits a line into at most 64 whitespace-separated tokens. */
static int split(char *line, char **tok) {
  int n = 0;
  for (char *t = strtok(line, " \t\n"); t && n < 64; t = strtok(NULL, " \t\n")) tok[n++] = t;
  return n;
}

/* Room for element n of an array whose capacity is the next power of two. */
static void *grow(void *v, size_t n, size_t size) {
  if (n & (n - 1)) return v;
  void *g = realloc(v, (n ? 2 * n : 1) * size);
  assert_non_null(g);
  return g;
}

/* One row line of the current FDE (or CIE) table. */
static void parse_row(char **tok, int ntok, int rbp_col, struct ref_row *out) {
  out->loc = strtoull(tok[0], NULL, 16);
  parse_cfa(tok[1], out);
  parse_rbp(rbp_col >= 0 && rbp_col < ntok ? tok[rbp_col] : NULL, out);
}

/* Reads readelf's interpretation of path's `section` (".eh_frame", ".debug_frame"). Under
 * qemu-user the loader's paths are the target root's (QEMU_LD_PREFIX, tests/aarch64/) and
 * readelf runs on the host: a path only the root has is read there. */
static struct ref read_reference(const char *path, const char *section) {
  char cmd[4200], line[4096];
  const char *root = getenv("QEMU_LD_PREFIX");
  char rooted[4096];
  snprintf(rooted, sizeof rooted, "%s%s", root ? root : "", path);
  if (root && path[0] == '/' && access(path, R_OK) != 0 && access(rooted, R_OK) == 0) path = rooted;
  snprintf(cmd, sizeof cmd, "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  struct ref ref = {0};
  struct cie_rule cies[256];
  size_t ncies = 0;
  int in_eh = 0, rbp_col = -1, in_cie = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "Contents of the ", 16))
      in_eh = !strncmp(line + 16, section, strlen(section)) && line[16 + strlen(section)] == ' ';
    char *tok[64];
    int n = split(line, tok);
    if (!in_eh || n < 2) continue;
    if (n >= 4 && !strcmp(tok[3], "CIE")) {
      in_cie = ncies < 256;
      if (in_cie) cies[ncies++].off = strtoul(tok[0], NULL, 16);
    } else if (n >= 6 && !strcmp(tok[3], "FDE")) {
      unsigned long cie_off = strtoul(tok[4] + 4, NULL, 16);
      ref.fdes = grow(ref.fdes, ref.nfdes, sizeof *ref.fdes);
      struct ref_fde *d = &ref.fdes[ref.nfdes++];
      *d = (struct ref_fde){.first = ref.nrows};
      sscanf(tok[5], "pc=%lx..%lx", &d->lo, &d->hi);
      for (size_t i = 0; i < ncies; i++)
        if (cies[i].off == cie_off) d->cie_rule = cies[i].row;
      in_cie = 0;
    } else if (!strcmp(tok[0], "LOC")) {
      rbp_col = -1;
      for (int i = 0; i < n; i++)
        if (!strcmp(tok[i], READELF_FP)) rbp_col = i;
    } else if (strlen(tok[0]) == 16 && in_cie) {
      parse_row(tok, n, rbp_col, &cies[ncies - 1].row);
    } else if (strlen(tok[0]) == 16 && ref.nfdes > 0) {
      ref.rows = grow(ref.rows, ref.nrows, sizeof *ref.rows);
      parse_row(tok, n, rbp_col, &ref.rows[ref.nrows++]);
      ref.fdes[ref.nfdes - 1].n++;
    }
  }
  pclose(f);
  return ref;
}

/* readelf's rule at pc inside fde d. */
static struct ref_row reference_rule(const struct ref *ref, const struct ref_fde *d, uint64_t pc) {
  struct ref_row r = d->cie_rule;
  for (size_t i = 0; i < d->n && ref->rows[d->first + i].loc <= pc; i++)
    r = ref->rows[d->first + i];
  return r;
}

/* Whether our row at pc says what readelf says. readelf prints a CFA expression as "exp";
 * the tables evaluate the one of a lazy PLT entry (impl/native/cfa_program.c): rsp + 8,
 * and rsp + 16 from the entry's byte 11 on (binutils' classic 16-byte entry), and leave
 * any other without a rule. */
static bool agrees(const struct asgst_cfi_rule *ours, const struct ref_row *theirs, uint64_t pc) {
  if (!ours) return false;
  /* A signal trampoline's FDE (its CIE says 'S', which readelf prints only there) is
   * stepped through the signal frame, whatever its rules. */
  if (ours->cfa_reg == ASGST_CFA_SIGNAL) return true;
  if (theirs->cfa == CFA_EXP && ours->cfa_reg == ASGST_CFA_SP)
    return ours->cfa_off == ((pc & 15) >= 11 ? 16 : 8);
  if (theirs->cfa == CFA_EXP) return ours->cfa_reg == ASGST_CFA_EXPR;
  int cfa = ours->cfa_reg == ASGST_CFA_SP   ? CFA_SP
            : ours->cfa_reg == ASGST_CFA_FP ? CFA_FP
                                            : CFA_OTHER;
  if (cfa != theirs->cfa || (cfa != CFA_OTHER && ours->cfa_off != theirs->cfa_off)) return false;
  bool saved = ours->fp_rule == ASGST_REG_AT_CFA;
  return saved == (bool)theirs->rbp_saved && (!saved || ours->fp_off == theirs->rbp_off);
}

/* Compares at 2,000 random pcs of `section` of the object loaded at base from path. */
static void compare_object(const char *what, const char *path, const char *section,
                           uintptr_t base) {
  struct ref ref = read_reference(path, section);
  assert_true(ref.nfdes > 0);
  int differ = 0;
  enum { PCS = 2000 };
  for (int i = 0; i < PCS; i++) {
    const struct ref_fde *d = &ref.fdes[(size_t)rand() % ref.nfdes];
    if (d->hi <= d->lo) {
      i--;
      continue;
    }
    uint64_t pc = d->lo + (uint64_t)rand() % (d->hi - d->lo);
    struct ref_row theirs = reference_rule(&ref, d, pc);
    const struct asgst_cfi_rule *ours = asgst__cfi_lookup(base + pc, false);
    if (agrees(ours, &theirs, pc)) continue;
    differ++;
    print_message("# %s pc %#lx: readelf cfa %d%+ld rbp %s%ld; ours %s cfa %d%+d rbp %d/%d\n",
                  what, (unsigned long)pc, theirs.cfa, theirs.cfa_off,
                  theirs.rbp_saved ? "c" : "-", theirs.rbp_off, ours ? "row" : "none",
                  ours ? ours->cfa_reg : -1, ours ? ours->cfa_off : 0, ours ? ours->fp_rule : -1,
                  ours ? ours->fp_off : 0);
  }
  print_message("# figure: %s: %d/%d random pcs agree with readelf (%zu FDEs, %zu rows)\n", what,
                PCS - differ, PCS, ref.nfdes, ref.nrows);
  assert_true(differ * 1000 <= PCS); /* >= 99.9% */
  free(ref.fdes);
  free(ref.rows);
}

#endif
