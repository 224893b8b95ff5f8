/* Host build of ../src/string.c with crt_-prefixed names (see rename.h). */
#include "rename.h"
#include "../src/string.c"
