#include "signature.h"

struct sg_signature sg_signature_repeat(struct sg_signature a, uint64_t times)
{
    /* by squaring: the operation is associative */
    struct sg_signature result = SG_SIGNATURE_EMPTY;
    for (; times > 0; times >>= 1) {
        if (times & 1)
            result = sg_signature_then(result, a);
        a = sg_signature_then(a, a);
    }
    return result;
}
