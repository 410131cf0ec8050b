/*
 * nofp.c - the C half of the native frames test (tests/jvm/test_native_frames.sh): a JNI
 * function and the C functions under it, all built WITHOUT frame pointers (see
 * tests/jvm/CMakeLists.txt), so that only the DWARF call frame tables can step them.
 *
 * NativeFrames.spin() calls nofp_level1 -> nofp_level2 -> nofp_level3 -> nofp_chain
 * (NOFP_CHAIN_DEPTH + 1 frames), whose innermost frame spins until NativeFrames.stop().
 * Every function is noinline and does work after its call, so no call becomes a jump
 * (the build also passes -fno-optimize-sibling-calls).
 */
#include <jni.h>

#define NOFP_CHAIN_DEPTH 16

static volatile int stop_flag;
static volatile unsigned long spins;

/* N. The innermost NOFP_CHAIN_DEPTH + 1 frames; spins at depth 0. */
__attribute__((noinline)) int nofp_chain(int depth) {
  volatile int keep = depth; /* a stack slot, so the frame has a size of its own */
  if (depth == 0) {
    while (!stop_flag) spins++;
    return keep;
  }
  return nofp_chain(depth - 1) + keep;
}

/* N. */
__attribute__((noinline)) int nofp_level3(int x) { return nofp_chain(NOFP_CHAIN_DEPTH) + x * 3; }

/* N. */
__attribute__((noinline)) int nofp_level2(int x) { return nofp_level3(x + 1) * 2; }

/* N. */
__attribute__((noinline)) int nofp_level1(int x) { return nofp_level2(x + 1) + 7; }

/* N. NativeFrames.spin(): spins three levels and a chain below this frame until stop(). */
JNIEXPORT jint JNICALL Java_NativeFrames_spin(JNIEnv *env, jclass cls, jint x) {
  (void)env, (void)cls;
  return nofp_level1(x) - 1;
}

/* N. NativeFrames.stop(): ends the spin. */
JNIEXPORT void JNICALL Java_NativeFrames_stop(JNIEnv *env, jclass cls) {
  (void)env, (void)cls;
  stop_flag = 1;
}
