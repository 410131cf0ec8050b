/*
 * call_stub.c - the x86_64 half of call_stub.h: where a pc lies in the call stub
 * before its call of the Java entry, from the stub's code.
 *
 * The stub as JDK 17 to 27 emit it (JDK 8 and 11 use the same macro assembler calls):
 *   push rbp; mov rbp,rsp; sub rsp,0x60
 *   mov [rbp-8],r9 ... mov [rbp-0x30],rdi          (its arguments; rdi: the JavaCallWrapper)
 *   mov [rbp-0x38],rbx ... mov [rbp-0x58],r15      (callee-saved registers)
 *   vstmxcsr [rbp-0x60]; mov eax,[rbp-0x60]; and eax,0xffc0; cmp eax,[rip+d]; je; vldmxcsr
 *   mov r15,[rbp+0x18]; mov r12,[rip+d] (or xor r12,r12)
 *   mov ecx,[rbp+0x10]; test ecx,ecx; je done
 *   mov rdx,[rbp-8]; mov esi,ecx; loop: mov rax,[rdx]; add rdx,8; dec esi; push rax; jne loop
 *   done: mov rbx,[rbp-0x18]; mov rsi,[rbp-0x10]; mov r13,rsp; call rsi
 * The return address of that call is StubRoutines::_call_stub_return_address. Nothing
 * after enter() writes rbp up to the call, so from the wrapper's store on the stub is an
 * entry frame as at its return address: the wrapper at rbp + 8 * entry_frame_call_wrapper_offset.
 * After the call (the Java callee returns rbp as it found it):
 *   mov rdi,[rbp-0x28]; mov esi,[rbp-0x20]; cmp esi,T_OBJECT; je store_long; ...; mov [rdi],eax
 *   exit: lea rsp,[rbp-0x60]; (JDK 21+: cmp rsp,[r15+d]; jb; mov qword [r15+d],0)
 *   mov r15,[rbp-0x58] ... mov rbx,[rbp-0x38]; vldmxcsr [rbp-0x60]; add rsp,0x60
 *   vzeroupper; pop rbp; ret
 *   store_long: mov [rdi],rax; jmp exit   (and vmovss, vmovsd for float and double)
 * an entry frame again up to the pop rbp, the return address at sp at the ret.
 */
#if defined(__x86_64__)
#include <stdatomic.h>
#include <stdbool.h>

#include "../../safe_read.h"
#include "../call_stub.h"

/* Branch targets remembered to check they are instruction boundaries. */
#define MAX_TARGETS 8
/* Instructions decoded after the wrapper's store at most (34 on JDK 25). */
#define MAX_BODY 64
/* Stores from enter() to the wrapper's at most (5 on JDK 17 to 27). */
#define MAX_STORES 16
#define RBP 5
#define RDI 7

/* SS. Length of a ModRM operand (ModRM, SIB, displacement) at p; *reg_rm the register
 * it names where mod is 3 (REX.B applied), else -1 (memory). */
static int modrm_len(const uint8_t *p, int rex, int *reg_rm) {
  int mod = p[0] >> 6, rm = p[0] & 7, len = 1;
  *reg_rm = mod == 3 ? (rm | (rex & 1) << 3) : -1;
  if (mod == 3) return 1;
  if (rm == 4) {
    len++; /* SIB */
    if (mod == 0 && (p[1] & 7) == 5) len += 4;
  } else if (mod == 0 && rm == 5) {
    len += 4; /* rip-relative */
  }
  if (mod == 1) len += 1;
  else if (mod == 2) len += 4;
  return len;
}

/* SS. The ModRM's reg field (REX.R applied). */
static int modrm_reg(uint8_t modrm, int rex) { return ((modrm >> 3) & 7) | (rex & 4) << 1; }

/* SS. The stub's SSE instructions, VEX-encoded (c5) or not (f3/f2 prefixes, none): at p
 * vzeroupper, vstmxcsr/vldmxcsr m32 or the result's store (v)movss/(v)movsd m,xmm; their
 * length, 0 if none of them. None writes a general register. */
static int sse_insn(const uint8_t *p) {
  int r, i = 0;
  if (p[0] == 0xc5) {
    if (p[2] == 0x77) return 3;
    i = 2;
  } else if ((p[0] == 0xf3 || p[0] == 0xf2) && p[1] == 0x0f && p[2] == 0x11) {
    i = 2;
  } else {
    return 0;
  }
  int ext = (p[i + 1] >> 3) & 7, mem = (p[i + 1] >> 6) != 3;
  if (p[i] == 0xae && (ext == 2 || ext == 3) && mem) return i + 1 + modrm_len(p + i + 1, 0, &r);
  if (p[i] == 0x11 && mem) return i + 1 + modrm_len(p + i + 1, 0, &r);
  return 0;
}

/* What body_insn met besides an ordinary instruction. */
enum { PLAIN, JCC, JMP, CALL_REG };

/* SS. One instruction of the stub after the wrapper's store at p: its length, 0 if not
 * one the decoder knows or it writes rbp. *kind says a conditional branch (JCC) or a
 * direct jump (JMP), their displacement in *rel (from the next instruction), or a call
 * through a register (CALL_REG). */
static int body_insn(const uint8_t *p, long *rel, int *kind) {
  *kind = PLAIN;
  int v = sse_insn(p);
  if (v) return v;
  int i = 0, rex = 0, r, written = -1;
  if ((p[0] & 0xf0) == 0x40) rex = p[i++];
  uint8_t op = p[i++];
  switch (op) {
    case 0x89: case 0x01: case 0x29: case 0x21: case 0x09: case 0x31: /* op r/m, reg */
      i += modrm_len(p + i, rex, &r);
      written = r;
      break;
    case 0x8b: case 0x03: case 0x2b: case 0x23: case 0x0b: case 0x33: case 0x8d: /* op reg, r/m */
      written = modrm_reg(p[i], rex);
      i += modrm_len(p + i, rex, &r);
      break;
    case 0x3b: case 0x39: case 0x85: /* cmp, test */
      i += modrm_len(p + i, rex, &r);
      break;
    case 0x81: case 0x83: { /* op r/m, imm: all but cmp (/7) write */
      int ext = (p[i] >> 3) & 7;
      i += modrm_len(p + i, rex, &r);
      if (ext != 7) written = r;
      i += op == 0x81 ? 4 : 1;
      break;
    }
    case 0xc7: /* mov r/m, imm32 */
      if (((p[i] >> 3) & 7) != 0) return 0;
      i += modrm_len(p + i, rex, &r);
      written = r;
      i += 4;
      break;
    case 0xff: {
      int ext = (p[i] >> 3) & 7;
      if (ext == 2 && (p[i] >> 6) == 3) { *kind = CALL_REG; return i + 1; } /* call reg */
      if (ext > 1) return 0;                                            /* only inc, dec */
      i += modrm_len(p + i, rex, &r);
      written = r;
      break;
    }
    case 0x25: case 0x3d: case 0x05: case 0x2d: case 0x0d: case 0x35: case 0xa9: /* op eax, imm32 */
      i += 4;
      break;
    case 0x0f:
      op = p[i++];
      if (op >= 0x80 && op <= 0x8f) { /* jcc rel32 */
        *rel = (int32_t)(p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24);
        *kind = JCC;
        return i + 4;
      }
      if (op == 0xae) { /* stmxcsr, ldmxcsr m32 (without VEX) */
        int ext = (p[i] >> 3) & 7;
        if ((ext != 2 && ext != 3) || (p[i] >> 6) == 3) return 0;
        return i + modrm_len(p + i, rex, &r);
      }
      if (op == 0x1f) return i + modrm_len(p + i, rex, &r); /* nop r/m */
      return 0;
    default:
      if ((op >= 0x70 && op <= 0x7f) || op == 0xeb) { /* jcc rel8, jmp rel8 */
        *rel = (int8_t)p[i];
        *kind = op == 0xeb ? JMP : JCC;
        return i + 1;
      }
      if (op == 0xe9) { /* jmp rel32 */
        *rel = (int32_t)(p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24);
        *kind = JMP;
        return i + 4;
      }
      if (op >= 0x50 && op <= 0x57) return i; /* push: rsp moves, rbp does not */
      if (op == 0x90) return i;
      if (op >= 0xb8 && op <= 0xbf) { /* mov reg, imm32 (imm64 with REX.W) */
        written = (op & 7) | (rex & 1) << 3;
        i += (rex & 8) ? 8 : 4;
        break;
      }
      return 0;
  }
  return written == RBP ? 0 : i;
}

/* SS. enter()'s mov rbp,rsp (either encoding) at p. */
static bool mov_rbp_rsp(const uint8_t *p) {
  return p[0] == 0x48 && ((p[1] == 0x8b && p[2] == 0xec) || (p[1] == 0x89 && p[2] == 0xe5));
}

/* SS. The stores between enter() and the wrapper's, from b[*at]: each a mov [rbp+d],reg,
 * which writes no register. True with *at just past the store of rdi at wrapper_disp;
 * *phase set to RECORD where pcoff is met on the way. */
static bool argument_stores(const uint8_t *b, int n, int *at, int pcoff, long wrapper_disp, int *phase) {
  for (int k = 0; k < MAX_STORES && *at + 8 <= n; k++) {
    if (*at == pcoff) *phase = ASGST__CS_RECORD;
    int i = *at, rex = 0;
    if ((b[i] & 0xf0) == 0x40) rex = b[i++];
    if (b[i] != 0x89) return false;
    uint8_t m = b[i + 1];
    int mod = m >> 6;
    if ((m & 7) != RBP || (mod != 1 && mod != 2)) return false;
    long disp = mod == 1 ? (long)(int8_t)b[i + 2]
                         : (long)(int32_t)(b[i + 2] | b[i + 3] << 8 | b[i + 4] << 16 | (uint32_t)b[i + 5] << 24);
    *at = i + 2 + (mod == 1 ? 1 : 4);
    if (rex == 0x48 && modrm_reg(m, rex) == RDI && disp == wrapper_disp) return true;
  }
  return false;
}

/* SS. The code of b[0, n) (n: the return address) from entry, decoded as the call stub's:
 * -1 if it is not the stub's, else where pcoff lies in it (ASGST__CS_*; NONE if pcoff is
 * no boundary of it, or -1). b has 16 readable bytes past n. */
static int decode_from(const uint8_t *b, int n, int entry, int pcoff, long wrapper_disp) {
  int at = entry, phase = ASGST__CS_NONE;
  if (b[at] != 0x55) return -1; /* push rbp */
  if (at == pcoff) phase = ASGST__CS_ENTRY;
  at++;
  if (!mov_rbp_rsp(b + at)) return -1;
  if (at == pcoff) phase = ASGST__CS_PUSHED;
  at += 3;
  if (at == pcoff) phase = ASGST__CS_RECORD;
  if (b[at] == 0x48 && b[at + 1] == 0x83 && b[at + 2] == 0xec) at += 4;      /* sub rsp,imm8 */
  else if (b[at] == 0x48 && b[at + 1] == 0x81 && b[at + 2] == 0xec) at += 7; /* sub rsp,imm32 */
  if (!argument_stores(b, n, &at, pcoff, wrapper_disp, &phase)) return -1;
  int body = at, targets[MAX_TARGETS], ntargets = 0;
  bool boundary[ASGST__CALL_STUB_SPAN + 1] = {false};
  for (int k = 0; k < MAX_BODY && at < n; k++) {
    boundary[at] = true;
    if (at == pcoff) phase = ASGST__CS_WRAPPER;
    long rel;
    int kind, len = body_insn(b + at, &rel, &kind);
    if (len == 0 || kind == JMP) return -1;
    at += len;
    if (kind == CALL_REG) {
      if (at != n) return -1;
      /* Every branch lands on an instruction after the wrapper's store. */
      for (int t = 0; t < ntargets; t++)
        if (!boundary[targets[t]]) return -1;
      return phase;
    }
    if (kind == JCC) {
      long t = at + rel;
      if (t < body || t >= n || ntargets == MAX_TARGETS) return -1;
      targets[ntargets++] = (int)t;
    }
  }
  return -1;
}

/* SS. The phase of pcoff in the stub's code up to its call, b[0, n) (n: the return
 * address), from the nearest entry at or below pcoff whose code decodes as the stub's
 * (its offset in *entry); pcoff -1: any such entry (the answer is then NONE). -1 where
 * there is none. */
static int prologue_phase(const uint8_t *b, int n, int pcoff, long wrapper_disp, int *entry) {
  for (int e = pcoff >= 0 ? pcoff : n - 1; e >= 0; e--) {
    if (b[e] != 0x55) continue;
    int phase = decode_from(b, n, e, pcoff, wrapper_disp);
    *entry = e;
    if (phase > ASGST__CS_NONE || (phase == ASGST__CS_NONE && pcoff < 0)) return phase;
  }
  return -1;
}

/* SS. The path of a result store out of line (a long, float or double result) at b[at]:
 * its instructions (none writes rbp) to a jump back to an instruction of the main path
 * (main[t]); their boundaries marked in side[]. False if it is not that. */
static bool result_store(const uint8_t *b, int n, int at, const bool *main, bool *side) {
  for (int k = 0; k < 8 && at < n; k++) {
    side[at] = true;
    long rel;
    int kind, len = body_insn(b + at, &rel, &kind);
    if (len == 0 || kind == JCC || kind == CALL_REG) return false;
    at += len;
    if (kind == JMP) return at + rel >= 0 && at + rel < n && main[at + rel];
  }
  return false;
}

/* SS. The phase of pcoff in the stub's code after its call, b[0, n) (b[0] at the return
 * address): its result stores, restores, the frame's release and pop rbp, every
 * instruction but that pop leaving rbp alone, then ret; the out-of-line stores of the
 * other result types after the ret, each jumping back. Up to the pop rbp the frame record
 * is the one enter() made (the Java callee returns with rbp as it found it): WRAPPER; at
 * the ret, ENTRY. NONE if pcoff is no boundary of that code or the code is not that. */
static int epilogue_phase(const uint8_t *b, int n, int pcoff) {
  bool main[ASGST__CALL_STUB_TAIL + 1] = {false}, side[ASGST__CALL_STUB_TAIL + 1] = {false};
  int targets[MAX_TARGETS], ntargets = 0, at = 0, ret_at = -1;
  for (int k = 0; k < MAX_BODY && at < n; k++) {
    main[at] = true;
    if (b[at] == 0x5d && b[at + 1] == 0xc3) { /* pop rbp; ret */
      ret_at = at + 1;
      break;
    }
    long rel;
    int kind, len = body_insn(b + at, &rel, &kind);
    if (len == 0 || (kind != PLAIN && kind != JCC)) return ASGST__CS_NONE;
    at += len;
    if (kind == JCC) {
      if (at + rel < 0 || at + rel >= n || ntargets == MAX_TARGETS) return ASGST__CS_NONE;
      targets[ntargets++] = (int)(at + rel);
    }
  }
  if (ret_at < 0) return ASGST__CS_NONE;
  for (int t = 0; t < ntargets; t++) {
    if (targets[t] > ret_at ? !result_store(b, n, targets[t], main, side) : !main[targets[t]])
      return ASGST__CS_NONE;
  }
  if (pcoff == ret_at) return ASGST__CS_ENTRY;
  return pcoff < n && (main[pcoff] || side[pcoff]) ? ASGST__CS_WRAPPER : ASGST__CS_NONE;
}

/* The entry the last answer found: where the next search begins (the stub's code never
 * changes while the VM lives). A hint only, read and written racily by any thread: every
 * answer decodes the code from an entry again, and where the hint gives none the whole
 * span is searched. It saves copying and searching the 512 bytes before the return
 * address (most of an answer's time). */
static _Atomic uintptr_t entry_hint;

/* SS. The stub's code [start, ret) copied to b (16 bytes of zeros after it), and the phase
 * of pc there (prologue_phase; pc at or above ret: -1 for no offset). -1 if unreadable. */
static int phase_from(uintptr_t start, uintptr_t ret, uintptr_t pc, long wrapper_disp, uint8_t *b) {
  int n = (int)(ret - start), entry = 0;
  if (!asgst__load_bytes(start, b, (size_t)n)) return -1;
  for (int i = n; i < n + 16; i++) b[i] = 0; /* no instruction the decoder knows */
  int phase = prologue_phase(b, n, pc < ret ? (int)(pc - start) : -1, wrapper_disp, &entry);
  if (phase >= 0) atomic_store_explicit(&entry_hint, start + (uintptr_t)entry, memory_order_relaxed);
  return phase;
}

/* SS. See call_stub.h. */
int asgst__hs_call_stub_at(uintptr_t pc, uintptr_t lo, uintptr_t hi, uintptr_t ret,
                           long wrapper_disp) {
  if (ret == 0 || pc < lo || ret > hi || ret - lo < 8) return ASGST__CS_NONE;
  /* At ret itself the stub is the entry frame the VM exports (the walker knows it so). */
  if (pc == ret || (pc < ret ? ret - pc > ASGST__CALL_STUB_SPAN : pc - ret >= ASGST__CALL_STUB_TAIL || pc >= hi))
    return ASGST__CS_NONE;
  uintptr_t start = ret - lo > ASGST__CALL_STUB_SPAN ? ret - ASGST__CALL_STUB_SPAN : lo;
  uintptr_t hint = atomic_load_explicit(&entry_hint, memory_order_relaxed);
  uint8_t b[ASGST__CALL_STUB_SPAN + 16];
  /* The code up to the call: the pc's phase there, or (a pc after it) the proof that
   * the stub is the call stub and its frame record at rbp from its enter() on. */
  int phase = -1;
  if (hint > start && hint < ret && (pc >= ret || hint <= pc)) phase = phase_from(hint, ret, pc, wrapper_disp, b);
  if (phase < 0) phase = phase_from(start, ret, pc, wrapper_disp, b);
  if (pc < ret || phase < 0) return phase < 0 ? ASGST__CS_NONE : phase;
  uint8_t t[ASGST__CALL_STUB_TAIL + 16];
  int m = hi - ret < ASGST__CALL_STUB_TAIL ? (int)(hi - ret) : ASGST__CALL_STUB_TAIL;
  if (!asgst__load_bytes(ret, t, (size_t)m)) return ASGST__CS_NONE;
  for (int i = m; i < m + 16; i++) t[i] = 0;
  return epilogue_phase(t, m, (int)(pc - ret));
}

#endif
