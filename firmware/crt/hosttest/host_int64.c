/* Host build of ../src/int64.c with crt_-prefixed names (see rename.h). */
#include "rename.h"
#include "../src/int64.c"
