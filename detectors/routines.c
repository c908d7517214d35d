#include "routines.h"

#include <string.h>

const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT] = {
#define SG_ROUTINE_INFO(name, global_buffer, irregular) {#name, global_buffer, irregular},
    SG_ROUTINE_LIST(SG_ROUTINE_INFO)
#undef SG_ROUTINE_INFO
};

int sg_routine_by_name(const char *name)
{
    for (int i = 0; i < SG_ROUTINE_COUNT; i++)
        if (strcmp(sg_routines[i].name, name) == 0)
            return i;
    return -1;
}
