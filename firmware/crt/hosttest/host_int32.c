/* Host build of ../src/int32.c with crt_-prefixed names (see rename.h). */
#include "rename.h"
#include "../src/int32.c"
