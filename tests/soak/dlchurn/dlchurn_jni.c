/* dlchurn_jni.c - DlChurn's native methods (tests/soak/memory.sh, run dlopen): load a
 * library, run its spin() for a while, unload it. */
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>

/* 1 if the library at path was loaded, ran and was unloaded, 0 if not. */
JNIEXPORT jint JNICALL Java_DlChurn_cycle(JNIEnv *env, jclass k, jstring path, jlong ms) {
  (void)k;
  const char *p = (*env)->GetStringUTFChars(env, path, NULL);
  if (!p) return 0;
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  (*env)->ReleaseStringUTFChars(env, path, p);
  if (!h) return 0;
  uint64_t (*spin)(long) = (uint64_t(*)(long))dlsym(h, "spin");
  if (spin) spin((long)ms);
  return dlclose(h) == 0 && spin ? 1 : 0;
}
