/*
 * walk_jni.c - the C half of the Java -> JNI C -> Java workload (Workload.nativeCall):
 * a JNI function that calls back into Java, built with frame pointers so that the stack
 * walker can find its frame with ASGST_INCLUDE_NON_JAVA_FRAMES. (Built like the agents in
 * this directory; it only needs jni.h.)
 */
#include <jni.h>

static jmethodID callback;

/* N. Workload.nativeCall(int depth, int x): calls Workload.callback(depth, x). */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) JNIEXPORT jint JNICALL
Java_Workload_nativeCall(JNIEnv *env, jclass cls, jint depth, jint x) {
  if (callback == NULL) callback = (*env)->GetStaticMethodID(env, cls, "callback", "(II)I");
  jint r = (*env)->CallStaticIntMethod(env, cls, callback, depth, x);
  /* Keep this frame's return path non-trivial so the call above is not a tail call. */
  return r + 1;
}

/* N. Workload.nativeNop(int x): returns at once. Called in a tight loop, its thread spends
 * its time in the transitions into and out of native code (_thread_in_native and
 * _thread_in_native_trans, the frame anchor set by the native method's wrapper). */
JNIEXPORT jint JNICALL Java_Workload_nativeNop(JNIEnv *env, jclass cls, jint x) {
  (void)env, (void)cls;
  return x * 31 + 7;
}
