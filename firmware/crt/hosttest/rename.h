/* rename.h - host builds of the runtime sources give every helper a crt_
 * prefix, so the test exercises our code and never the host's libc/libgcc
 * (and the host compiler's own calls to libgcc cannot reach ours). */
#define __mulsi3 crt_mulsi3
#define __udivsi3 crt_udivsi3
#define __umodsi3 crt_umodsi3
#define __divsi3 crt_divsi3
#define __modsi3 crt_modsi3
#define __muldi3 crt_muldi3
#define __udivdi3 crt_udivdi3
#define __umoddi3 crt_umoddi3
#define __divdi3 crt_divdi3
#define __moddi3 crt_moddi3
#define __ashldi3 crt_ashldi3
#define __lshrdi3 crt_lshrdi3
#define __ashrdi3 crt_ashrdi3
#define __negdi2 crt_negdi2
#define __cmpdi2 crt_cmpdi2
#define __ucmpdi2 crt_ucmpdi2
#define memcpy crt_memcpy
#define memmove crt_memmove
#define memset crt_memset
#define memcmp crt_memcmp
#define strlen crt_strlen
#define strcmp crt_strcmp
