/*
 * cfa_program.c - parsing CIE/FDE records and running their DW_CFA_* instructions
 * (see cfa_program.h). Facts from the DWARF 4 standard (section 6.4) and the LSB's
 * description of .eh_frame.
 */
#include "impl/native/cfa_program.h"

#include <string.h>

#include "impl/native/cfi_arch.h"

/* A CIE: what every FDE pointing to it shares. */
struct cie {
  uint64_t code_align;
  int64_t data_align;
  uint64_t ra_reg;
  uint8_t fde_enc;
  bool has_aug_data; /* 'z': FDEs carry an augmentation data length */
  const uint8_t *insns, *insns_end;
};

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
  struct reg_rule fp, ra;
};

enum { REMEMBER_DEPTH = 8 }; /* compilers nest remember_state one or two deep */

/* One interpreter run: over a CIE's initial instructions (rv NULL) or an FDE's. */
struct cfa_run {
  const struct cie *cie;
  const struct asgst_cfi_source *src;
  struct cfa_state st, initial, saved[REMEMBER_DEPTH];
  unsigned depth;
  uintptr_t begin, loc, end; /* run-time addresses */
  struct asgst_cfi_rowvec *rv;
};

/* N. Reads an entry's length; *id_at is where the CIE id / CIE pointer field starts and
 * *entry_end the entry's end. false when truncated; a zero length (terminator) leaves
 * *entry_end NULL. */
static bool entry_bounds(const struct asgst_cfi_source *src, const uint8_t *at,
                         const uint8_t **id_at, const uint8_t **entry_end) {
  struct asgst_dw_cursor c = asgst__dw_cursor(at, src->hi, src->lo, src->hi);
  uint64_t len = asgst__dw_u32(&c);
  if (len == 0xffffffffu) len = asgst__dw_u64(&c); /* 64-bit DWARF */
  if (c.bad) return false;
  *id_at = c.p;
  if (len == 0) {
    *entry_end = NULL;
    return true;
  }
  if (len > (uint64_t)(src->hi - c.p)) return false;
  *entry_end = c.p + len;
  return true;
}

/* N. Reads the augmentation data the string `aug` announces. */
static bool cie_augmentation(struct asgst_dw_cursor *c, const char *aug, struct cie *cie) {
  if (aug[0] != 'z') return aug[0] == 0; /* without 'z' nothing else can be skipped */
  cie->has_aug_data = true;
  uint64_t len = asgst__dw_uleb(c);
  const uint8_t *data_end = c->p + (len <= (uint64_t)(c->end - c->p) ? len : 0);
  if (len > (uint64_t)(c->end - c->p)) return false;
  for (const char *a = aug + 1; *a && !c->bad; a++) {
    if (*a == 'R') {
      cie->fde_enc = asgst__dw_u8(c);
    } else if (*a == 'P') {
      uint8_t enc = asgst__dw_u8(c);
      asgst__dw_pointer(c, enc & (uint8_t)~ASGST_PE_INDIRECT); /* skip the personality */
    } else if (*a == 'L') {
      asgst__dw_u8(c);
    } else if (*a != 'S' && *a != 'B' && *a != 'G') {
      break; /* unknown letter: the length still lets us skip the rest */
    }
  }
  c->p = data_end;
  return !c->bad;
}

/* N. Parses the CIE at `at`. */
static bool parse_cie(const struct asgst_cfi_source *src, const uint8_t *at, struct cie *cie) {
  const uint8_t *id_at, *end;
  if (!entry_bounds(src, at, &id_at, &end) || !end) return false;
  struct asgst_dw_cursor c = asgst__dw_cursor(id_at, end, src->lo, src->hi);
  memset(cie, 0, sizeof *cie);
  if (asgst__dw_u32(&c) != 0) return false; /* .eh_frame CIE id */
  uint8_t version = asgst__dw_u8(&c);
  const char *aug = (const char *)c.p;
  size_t aug_len = strnlen(aug, (size_t)(c.end - c.p));
  if (c.bad || aug_len == (size_t)(c.end - c.p) || (version != 1 && version != 3)) return false;
  asgst__dw_skip(&c, aug_len + 1);
  if (strstr(aug, "eh")) asgst__dw_skip(&c, sizeof(uintptr_t)); /* old GCC eh_ptr */
  cie->code_align = asgst__dw_uleb(&c);
  cie->data_align = asgst__dw_sleb(&c);
  cie->ra_reg = version == 1 ? asgst__dw_u8(&c) : asgst__dw_uleb(&c);
  if (!cie_augmentation(&c, aug, cie)) return false;
  cie->insns = c.p;
  cie->insns_end = end;
  return !c.bad;
}

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
static void emit(struct cfa_run *r) {
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
  asgst__rowvec_push(r->rv, (uint32_t)(r->loc - r->src->base), &rule);
}

/* N. Moves the location on by delta code units, emitting the row that ends there. */
static void advance(struct cfa_run *r, uint64_t delta) {
  emit(r);
  r->loc += delta * r->cie->code_align;
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
  case 0x01: /* set_loc */
    emit(r);
    r->loc = asgst__dw_pointer(c, r->cie->fde_enc);
    return true;
  case 0x02: advance(r, asgst__dw_u8(c)); return true;
  case 0x03: advance(r, asgst__dw_u16(c)); return true;
  case 0x04: advance(r, asgst__dw_u32(c)); return true;
  case 0x05: /* offset_extended */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, (int64_t)asgst__dw_uleb(c) * daf);
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
  case 0x0f: /* def_cfa_expression: not evaluated; the row gets no rule */
    asgst__dw_skip(c, asgst__dw_uleb(c));
    r->st.cfa_expr = true;
    return true;
  case 0x10: /* expression */
  case 0x16: /* val_expression */
    reg = asgst__dw_uleb(c);
    asgst__dw_skip(c, asgst__dw_uleb(c));
    set_rule(r, reg, ASGST_REG_OTHER, 0);
    return true;
  case 0x11: /* offset_extended_sf */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, asgst__dw_sleb(c) * daf);
    return true;
  case 0x12: /* def_cfa_sf */
    r->st.cfa_reg = asgst__dw_uleb(c);
    r->st.cfa_off = asgst__dw_sleb(c) * daf;
    r->st.cfa_expr = false;
    return true;
  case 0x13: r->st.cfa_off = asgst__dw_sleb(c) * daf; return true; /* def_cfa_offset_sf */
  case 0x14: /* val_offset */
  case 0x15: /* val_offset_sf */
    reg = asgst__dw_uleb(c);
    if (op == 0x14) asgst__dw_uleb(c);
    else asgst__dw_sleb(c);
    set_rule(r, reg, ASGST_REG_OTHER, 0);
    return true;
  case 0x2e: asgst__dw_uleb(c); return true; /* GNU_args_size: no bearing on the CFA */
  case 0x2f: /* GNU_negative_offset_extended */
    reg = asgst__dw_uleb(c);
    set_rule(r, reg, ASGST_REG_AT_CFA, -(int64_t)asgst__dw_uleb(c) * daf);
    return true;
  default: return false;
  }
}

/* N. Runs the instructions in [p, end). false on a malformed program. */
static bool run(struct cfa_run *r, const uint8_t *p, const uint8_t *end) {
  struct asgst_dw_cursor c = asgst__dw_cursor(p, end, r->src->lo, r->src->hi);
  while (c.p < c.end && !c.bad) {
    uint8_t op = asgst__dw_u8(&c);
    uint8_t arg = op & 0x3f;
    switch (op >> 6) {
    case 1: advance(r, arg); break; /* advance_loc */
    case 2: set_rule(r, arg, ASGST_REG_AT_CFA, (int64_t)asgst__dw_uleb(&c) * r->cie->data_align);
      break; /* offset */
    case 3: restore(r, arg); break;
    default:
      if (!run_extended(r, &c, arg)) return false;
    }
  }
  return !c.bad;
}

/* N. Parses the FDE header after its CIE pointer and runs CIE and FDE programs. */
static int fde_rows(const struct asgst_cfi_source *src, const struct cie *cie,
                    struct asgst_dw_cursor *c, struct asgst_cfi_rowvec *rv) {
  uintptr_t begin = asgst__dw_pointer(c, cie->fde_enc);
  uintptr_t range = asgst__dw_pointer(c, cie->fde_enc & 0x0f);
  if (cie->has_aug_data) asgst__dw_skip(c, asgst__dw_uleb(c));
  if (c->bad) return -1;
  if (range == 0) return 0;
  if (begin < src->base || begin + range - src->base > UINT32_MAX) return -1;
  struct cfa_run r = {.cie = cie, .src = src, .begin = begin, .loc = begin, .end = begin + range};
  /* Unmentioned registers keep their value in the caller: the compilers' convention
   * for callee-saved registers such as the frame pointer. */
  r.st.fp.kind = r.st.ra.kind = ASGST_REG_SAME;
  if (!run(&r, cie->insns, cie->insns_end)) return -1;
  r.initial = r.st;
  r.rv = rv;
  r.loc = begin;
  if (!run(&r, c->p, c->end)) return -1;
  emit(&r);
  struct asgst_cfi_rule gap = {.cfa_reg = ASGST_CFA_GAP};
  asgst__rowvec_push(rv, (uint32_t)(begin + range - src->base), &gap);
  return 0;
}

/* N. */
int asgst__cfi_fde_rows(const struct asgst_cfi_source *src, const uint8_t *fde,
                        const uint8_t **next, struct asgst_cfi_rowvec *rv) {
  const uint8_t *id_at, *end;
  if (!entry_bounds(src, fde, &id_at, &end)) return -1;
  *next = end;
  if (!end) return 0;
  struct asgst_dw_cursor c = asgst__dw_cursor(id_at, end, src->lo, src->hi);
  uint32_t cie_ptr = asgst__dw_u32(&c);
  if (c.bad) return -1;
  if (cie_ptr == 0) return 0; /* a CIE */
  /* The CIE pointer counts back from its own field. */
  if (cie_ptr > (uintptr_t)(id_at - src->lo)) return -1;
  struct cie cie;
  if (!parse_cie(src, id_at - cie_ptr, &cie)) return -1;
  return fde_rows(src, &cie, &c, rv);
}
