#include "routines.h"

#include <string.h>

const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT] = {
#define SG_ROUTINE_INFO(name, global_buffer, displs, in_place_side, rooted, reduction, knows, \
                        v_form)                                                                \
    {#name,                                                                                    \
     global_buffer,                                                                            \
     SG_DISPLS_##displs,                                                                       \
     SG_IN_PLACE_##in_place_side,                                                              \
     SG_DISPLS_##displs != SG_DISPLS_NONE,                                                     \
     SG_IN_PLACE_##in_place_side != SG_IN_PLACE_NONE,                                          \
     rooted,                                                                                   \
     reduction,                                                                                \
     knows,                                                                                    \
     SG_##v_form},
    SG_ROUTINE_LIST(SG_ROUTINE_INFO)
#undef SG_ROUTINE_INFO
};

int sg_routine_by_name(const char *name) { return sg_routine_by_name_length(name, strlen(name)); }

int sg_routine_by_name_length(const char *name, size_t length)
{
    for (int i = 0; i < SG_ROUTINE_COUNT; i++)
        if (strlen(sg_routines[i].name) == length && memcmp(sg_routines[i].name, name, length) == 0)
            return i;
    return -1;
}
