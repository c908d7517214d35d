# The spread rule on the cluster (README, "The bounds INI"; issue 48, item 4):
# an INI with an entry of MPI_Allgather measured on 1 node and one measured
# on 2 nodes, each naming its own workaround, under the fault preload that
# crashes MPI_Allgather past its bound; jobs on 1, 2 and 4 nodes (launch-local,
# and launch-slurm's srun), communicators of 1 and 2 nodes within one job,
# the nearest spread and a tie, and a file with the 1-node entry only,
# applied across nodes and said once (spread-case.sh has the cases). Included from CMakeLists.txt here, past its
# check for root and Slurm, with its cluster and cluster_env.
add_executable(spread_comms ${CMAKE_CURRENT_LIST_DIR}/spread_comms.c)
target_link_libraries(spread_comms PRIVATE MPI::MPI_C)
set(spread_cases unprotected_2_nodes local_1_node local_1_node_nearest local_2_nodes
    slurm_2_nodes local_4_nodes one_node_entry_2_nodes tie_2_nodes comms_1_node comms_2_nodes)
foreach(case IN LISTS spread_cases)
  add_test(NAME cluster_spread_${case}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/spread-case.sh ${case} ${SCALEGUARD_STAGE_DIR}
                   $<TARGET_FILE:scaleguard> $<TARGET_FILE:sgfault> $<TARGET_FILE:spread_comms>)
endforeach()
list(TRANSFORM spread_cases PREPEND cluster_spread_)
set_tests_properties(${spread_cases} PROPERTIES LABELS "cluster;slurm" TIMEOUT 120
  FIXTURES_REQUIRED cluster ENVIRONMENT "${cluster_env}"
  ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
# The tester's spread (scaleguard-probe --nodes 1,2,4): probe-across.sh has
# the cases; `campaign` (the same as a Slurm campaign, about 90 s) is long.
foreach(case same differs campaign)
  add_test(NAME cluster_probe_across_${case}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/probe-across.sh ${case} ${SCALEGUARD_STAGE_DIR}
                   $<TARGET_FILE:sgfault>)
  set_tests_properties(cluster_probe_across_${case} PROPERTIES LABELS "cluster;slurm;tester"
    TIMEOUT 300 FIXTURES_REQUIRED cluster ENVIRONMENT "${cluster_env}"
    ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
endforeach()
set_tests_properties(cluster_probe_across_campaign PROPERTIES LABELS "cluster;slurm;tester;long")
