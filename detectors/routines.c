#include "routines.h"

#include <string.h>

/* A side with displacements: V, or W (in bytes). */
#define SG_IS_V(side) (SG_SIDE_##side == SG_SIDE_V || SG_SIDE_##side == SG_SIDE_W)
#define SG_HAS_BLOCKS(side) (SG_SIDE_##side == SG_SIDE_REGULAR || SG_IS_V(side))

#define SG_IS_PREFIX(reduces)                                                                   \
    (SG_REDUCES_##reduces == SG_REDUCES_PREFIX ||                                               \
     SG_REDUCES_##reduces == SG_REDUCES_EXCLUSIVE_PREFIX)

const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT] = {
#define SG_ROUTINE_INFO(name_, send_, recv_, in_place_, rooted_, reduces_, blocks_, v_form_)    \
    {.name = #name_,                                                                            \
     .send = SG_SIDE_##send_,                                                                   \
     .recv = SG_SIDE_##recv_,                                                                   \
     .in_place_side = SG_IN_PLACE_##in_place_,                                                  \
     .rooted = rooted_,                                                                         \
     .reduces = SG_REDUCES_##reduces_,                                                          \
     .blocks = SG_BLOCKS_##blocks_,                                                             \
     .v_form = SG_##v_form_,                                                                    \
     .neighbours = SG_BLOCKS_##blocks_ == SG_BLOCKS_NEIGHBOURS,                                 \
     .reduction = SG_REDUCES_##reduces_ != SG_REDUCES_NONE,                                     \
     .prefix = SG_IS_PREFIX(reduces_),                                                          \
     .in_place_alike =                                                                          \
         SG_IN_PLACE_##in_place_ != SG_IN_PLACE_NONE && !rooted_ && !SG_IS_PREFIX(reduces_),    \
     .displs = (enum sg_displs)(SG_IS_V(send_) * SG_DISPLS_SEND | SG_IS_V(recv_) * SG_DISPLS_RECV), \
     .irregular = SG_IS_V(send_) || SG_IS_V(recv_),                                             \
     .in_place = SG_IN_PLACE_##in_place_ != SG_IN_PLACE_NONE,                                   \
     .knows = !(SG_IS_V(send_) || SG_IS_V(recv_)) ? SG_KNOWS_ALL                                \
              : rooted_                           ? SG_KNOWS_ROOT                               \
                                                  : SG_KNOWS_OWN,                               \
     .global_buffer =                                                                           \
         SG_HAS_BLOCKS(send_) || SG_HAS_BLOCKS(recv_) ? SG_GLOBAL_SNP : SG_GLOBAL_SN,         \
     .pairwise = SG_HAS_BLOCKS(send_) && SG_HAS_BLOCKS(recv_) &&                               \
                 SG_BLOCKS_##blocks_ == SG_BLOCKS_RANKS,                                  \
     .aint_displs = SG_BLOCKS_##blocks_ == SG_BLOCKS_NEIGHBOURS &&                              \
                    (SG_SIDE_##send_ == SG_SIDE_W || SG_SIDE_##recv_ == SG_SIDE_W)},
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
