/*
 * cfa_program.c - running the DW_CFA_* instructions of a CIE and an FDE (see
 * cfa_program.h). Facts from the DWARF 4 standard (section 6.4).
 */
#include "impl/native/cfa_program.h"

#include <string.h>

#include "impl/arch/arch.h"
#include "impl/native/dwarf_cursor.h"

/* The rule of one tracked register. */
struct reg_rule {
  uint8_t kind; /* ASGST_REG_* */
  int64_t off;
};

/* The interpreter's row state. */
struct cfa_state {
  uint64_t cfa_reg;
  int64_t cfa_off;
  bool cfa_expr;
  uint8_t plt_at; /* cfa_expr is a PLT's (see plt_threshold), its threshold; else 0 */
  struct reg_rule fp, ra;
};

enum { REMEMBER_DEPTH = 8 }; /* compilers nest remember_state one or two deep */

/* One interpreter run: over a CIE's initial instructions (rv NULL) or an FDE's. */
struct cfa_run {
  const struct asgst_cie *cie;
  const struct asgst_fde *fde;
  struct cfa_state st, initial, saved[REMEMBER_DEPTH];
  unsigned depth;
  uintptr_t begin, loc, end; /* run-time addresses */
  struct asgst_cfi_rowvec *rv;
};

/* N. The rule of a register if it is one we track, else NULL. */
static struct reg_rule *tracked(struct cfa_run *r, uint64_t reg) {
  if (reg == ASGST_DW_FP) return &r->st.fp;
  if (reg == r->cie->ra_reg) return &r->st.ra;
  return NULL;
}

/* N. A register rule in a table rule: offsets beyond 16 bits become "other". */
static void reg_to_rule(const struct reg_rule *rule, uint8_t *kind, int16_t *off) {
  *kind = rule->kind;
  *off = 0;
  if (rule->kind != ASGST_REG_AT_CFA) return;
  if (rule->off < INT16_MIN || rule->off > INT16_MAX) *kind = ASGST_REG_OTHER;
  else *off = (int16_t)rule->off;
}

/* N. Appends the row for the current state at the current location. */
static void emit_row(struct cfa_run *r) {
  if (!r->rv || r->loc < r->begin || r->loc >= r->end) return;
  struct asgst_cfi_rule rule = {0};
  if (r->st.cfa_expr) rule.cfa_reg = ASGST_CFA_EXPR;
  else if (r->st.cfa_reg == ASGST_DW_SP) rule.cfa_reg = ASGST_CFA_SP;
  else if (r->st.cfa_reg == ASGST_DW_FP) rule.cfa_reg = ASGST_CFA_FP;
  else rule.cfa_reg = ASGST_CFA_EXPR; /* another register: no rule for the stepper */
  if (r->st.cfa_off < INT32_MIN || r->st.cfa_off > INT32_MAX) rule.cfa_reg = ASGST_CFA_EXPR;
  else if (rule.cfa_reg != ASGST_CFA_EXPR) rule.cfa_off = (int32_t)r->st.cfa_off;
  reg_to_rule(&r->st.fp, &rule.fp_rule, &rule.fp_off);
  reg_to_rule(&r->st.ra, &rule.ra_rule, &rule.ra_off);
  /* A signal trampoline's rules (an expression on x86_64 glibc, the frame record after
   * the signal frame in arm64's vDSO, which yields the interrupted frame's caller and
   * skips the frame itself) give way to the step through the signal frame. */
  if (r->cie->signal_frame) rule = (struct asgst_cfi_rule){.cfa_reg = ASGST_CFA_SIGNAL};
  asgst__rowvec_push(r->rv, (uint32_t)(r->loc - r->fde->base), &rule);
}

enum { PLT_ENTRY = 16, PLT_MAX_RANGE = 1 << 20 };

/* N. The rows of a PLT's CFA expression over [r->loc, until): CFA = rsp + 8 in each
 * 16-byte entry, rsp + 16 from its byte plt_at on (after the entry's push): rows the
 * stepper can use, two per entry. Entries are 16-byte aligned at run time and at link
 * time alike (objects are loaded at page-aligned offsets). */
static void emit_plt(struct cfa_run *r, uintptr_t until) {
  struct cfa_state st = r->st;
  uintptr_t from = r->loc, at = st.plt_at;
  r->st.cfa_expr = false;
  r->st.cfa_reg = ASGST_DW_SP;
  for (uintptr_t entry = from & ~(uintptr_t)(PLT_ENTRY - 1); entry < until; entry += PLT_ENTRY) {
    r->loc = entry > from ? entry : from;
    r->st.cfa_off = r->loc - entry >= at ? 16 : 8;
    emit_row(r);
    r->loc = entry + at;
    r->st.cfa_off = 16;
    if (r->loc > from && r->loc < until) emit_row(r);
  }
  r->st = st;
  r->loc = from;
}

/* N. Appends the rows for the current state over [r->loc, until). */
static void emit(struct cfa_run *r, uintptr_t until) {
  if (r->st.cfa_expr && r->st.plt_at && until > r->loc && until - r->loc <= PLT_MAX_RANGE) emit_plt(r, until);
  else emit_row(r);
}

/* N. Moves the location on by delta code units, emitting the rows that end there. */
static void advance(struct cfa_run *r, uint64_t delta) {
  uintptr_t to = r->loc + delta * r->cie->code_align;
  emit(r, to);
  r->loc = to;
}

/* N. The threshold of a PLT's CFA expression, as linkers write it for x86_64 lazy PLT
 * entries of 16 bytes: rsp + 8 + ((rip & 15) >= N ? 8 : 0), that is DW_OP_breg7 8,
 * DW_OP_breg16 0, DW_OP_lit15, DW_OP_and, DW_OP_litN, DW_OP_ge, DW_OP_lit3, DW_OP_shl,
 * DW_OP_plus (N = 11 for the classic entry); 0 for any other expression. Spelled with
 * the stack pointer and return address columns (rip is x86_64's), so that on arm64,
 * whose PLTs have no such expression, nothing matches by accident of numbering. */
static uint8_t plt_threshold(const uint8_t *e, uint64_t len) {
  enum { BREG0 = 0x70 };
  static const uint8_t head[] = {BREG0 + ASGST_DW_SP, 0x08, BREG0 + ASGST_DW_RA, 0x00, 0x3f, 0x1a},
                       tail[] = {0x2a, 0x33, 0x24, 0x22};
  if (len != sizeof head + 1 + sizeof tail || memcmp(e, head, sizeof head) != 0 ||
      memcmp(e + sizeof head + 1, tail, sizeof tail) != 0)
    return 0;
  uint8_t lit = e[sizeof head];
  return lit > 0x30 && lit <= 0x3f ? (uint8_t)(lit - 0x30) : 0;
}

/* N. An operand times a data alignment factor, wrapping instead of overflowing (garbage
 * input must not reach signed overflow). */
static int64_t scaled(uint64_t operand, int64_t factor) {
  return (int64_t)(operand * (uint64_t)factor);
}

/* N. Sets a tracked register's rule (other registers are ignored). */
static void set_rule(struct cfa_run *r, uint64_t reg, uint8_t kind, int64_t off) {
  struct reg_rule *rule = tracked(r, reg);
  if (rule) *rule = (struct reg_rule){kind, off};
}

/* N. DW_CFA_restore(_extended): back to the CIE's rule. */
static void restore(struct cfa_run *r, uint64_t reg) {
  struct reg_rule *rule = tracked(r, reg);
  if (rule) *rule = rule == &r->st.fp ? r->initial.fp : r->initial.ra;
}

/* N. Runs one extended-opcode instruction (the low six bits of the opcode byte being
 * the operation). false on a malformed or unknown one. */
static bool run_extended(struct cfa_run *r, struct asgst_dw_cursor *c, uint8_t op) {
  const int64_t daf = r->cie->data_align;
  uint64_t reg;
  switch (op) {
  case 0x00: return true; /* nop */
  case 0x01: { /* set_loc */
    uintptr_t to = asgst__dw_pointer(c, r->cie->fde_enc);
    emit(r, to);
    r->loc = to;
    return true;
  }
  case 0x02: advance(r, asgst__dw_u8(c)); return true;
  case 0x03: advance(r, asgst__dw_u16(c)); return true;
  case 0x04: advance(r, asgst__dw_u32(c)); return true;
  case 0x05: /* offset_extended */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, scaled(asgst__dw_uleb(c), daf));
    return true;
  case 0x06: restore(r, asgst__dw_uleb(c)); return true;
  case 0x07: set_rule(r, asgst__dw_uleb(c), ASGST_REG_UNDEF, 0); return true;
  case 0x08: set_rule(r, asgst__dw_uleb(c), ASGST_REG_SAME, 0); return true;
  case 0x09: /* register: the value lives in another register */
    reg = asgst__dw_uleb(c);
    asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_OTHER, 0);
    return true;
  case 0x0a: /* remember_state */
    if (r->depth == REMEMBER_DEPTH) return false;
    r->saved[r->depth++] = r->st;
    return true;
  case 0x0b: { /* restore_state: the CFA and rules, not the location */
    if (r->depth == 0) return false;
    r->st = r->saved[--r->depth];
    return true;
  }
  case 0x0c: /* def_cfa */
    r->st.cfa_reg = asgst__dw_uleb(c);
    r->st.cfa_off = (int64_t)asgst__dw_uleb(c);
    r->st.cfa_expr = false;
    return true;
  case 0x0d: r->st.cfa_reg = asgst__dw_uleb(c); r->st.cfa_expr = false; return true;
  case 0x0e: r->st.cfa_off = (int64_t)asgst__dw_uleb(c); return true;
  case 0x0f: { /* def_cfa_expression: a PLT's gets rows (emit_plt), others no rule */
    uint64_t len = asgst__dw_uleb(c);
    r->st.plt_at = !c->bad && len <= (uint64_t)(c->end - c->p) ? plt_threshold(c->p, len) : 0;
    asgst__dw_skip(c, len);
    r->st.cfa_expr = true;
    return true;
  }
  case 0x10: /* expression */
  case 0x16: /* val_expression */
    reg = asgst__dw_uleb(c);
    asgst__dw_skip(c, asgst__dw_uleb(c));
    set_rule(r, reg, ASGST_REG_OTHER, 0);
    return true;
  case 0x11: /* offset_extended_sf */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, scaled((uint64_t)asgst__dw_sleb(c), daf));
    return true;
  case 0x12: /* def_cfa_sf */
    r->st.cfa_reg = asgst__dw_uleb(c);
    r->st.cfa_off = scaled((uint64_t)asgst__dw_sleb(c), daf);
    r->st.cfa_expr = false;
    return true;
  case 0x13: /* def_cfa_offset_sf */
    r->st.cfa_off = scaled((uint64_t)asgst__dw_sleb(c), daf);
    return true;
  case 0x14: /* val_offset */
  case 0x15: /* val_offset_sf */
    reg = asgst__dw_uleb(c);
    if (op == 0x14) asgst__dw_uleb(c);
    else asgst__dw_sleb(c);
    set_rule(r, reg, ASGST_REG_OTHER, 0);
    return true;
  case 0x2d: return true; /* AARCH64_negate_ra_state (arm64's pac-ret code: the return
                             address is signed from here on; where it is saved does not
                             change, and the walker strips the signature). On SPARC the
                             same number is GNU_window_save, which no x86_64 or arm64
                             object carries. */
  case 0x2e: asgst__dw_uleb(c); return true; /* GNU_args_size: no bearing on the CFA */
  case 0x2f: /* GNU_negative_offset_extended */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, scaled(0 - asgst__dw_uleb(c), daf));
    return true;
  default: return false;
  }
}

/* N. Runs the instructions in [p, end). false on a malformed program. */
static bool run(struct cfa_run *r, const uint8_t *p, const uint8_t *end) {
  struct asgst_dw_cursor c = asgst__dw_cursor(p, end, r->fde->lo, r->fde->hi);
  while (c.p < c.end && !c.bad) {
    uint8_t op = asgst__dw_u8(&c);
    uint8_t arg = op & 0x3f;
    switch (op >> 6) {
    case 1: advance(r, arg); break; /* advance_loc */
    case 2: set_rule(r, arg, ASGST_REG_AT_CFA, scaled(asgst__dw_uleb(&c), r->cie->data_align));
      break; /* offset */
    case 3: restore(r, arg); break;
    default:
      if (!run_extended(r, &c, arg)) return false;
    }
  }
  return !c.bad;
}

/* N. */
int asgst__cfa_fde_rows(const struct asgst_cie *cie, const struct asgst_fde *fde,
                        struct asgst_cfi_rowvec *rv) {
  uintptr_t end = fde->begin + fde->range;
  if (fde->begin < fde->base || end < fde->begin || end - fde->base > UINT32_MAX) return -1;
  struct cfa_run r = {.cie = cie, .fde = fde, .begin = fde->begin, .loc = fde->begin, .end = end};
  /* Unmentioned registers keep their value in the caller: the compilers' convention
   * for callee-saved registers such as the frame pointer. */
  r.st.fp.kind = r.st.ra.kind = ASGST_REG_SAME;
  if (!run(&r, cie->insns, cie->insns_end)) return -1;
  r.initial = r.st;
  r.rv = rv;
  r.loc = fde->begin;
  if (!run(&r, fde->insns, fde->end)) return -1;
  emit(&r, end);
  struct asgst_cfi_rule gap = {.cfa_reg = ASGST_CFA_GAP};
  asgst__rowvec_push(rv, (uint32_t)(end - fde->base), &gap);
  return 0;
}
