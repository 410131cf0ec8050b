/*
 * metadata.h - method and class metadata read from VM memory (method_info.c,
 * class_info.c, line_table.c); SS, the caller holds the guard.
 */
#ifndef ASGST_HOTSPOT_METADATA_H
#define ASGST_HOTSPOT_METADATA_H

#include <jni.h>

#include "asgst.h"

void asgst__hs_method_info(ASGST_Method m, ASGST_MethodInfo *info);
void asgst__hs_class_info(ASGST_Class k, ASGST_ClassInfo *info);
ASGST_Class asgst__hs_method_class(ASGST_Method m);
jint asgst__hs_method_idnum(ASGST_Method m);
jlong asgst__hs_class_idnum(ASGST_Class k);
int asgst__hs_line_table(ASGST_Method m, int offset, ASGST_MethodLineNumberEntry *e, int length);

#endif
