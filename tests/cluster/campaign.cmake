# The tester as a campaign (issue 48, item 3), labels cluster and long (not
# in CI: 4-9 minutes each here; campaign-case.sh):
#   cluster_campaign_node_lost  a cluster of its own, four nodes (its own
#       prefix and ports, a silent node down after 10 s): the node of the
#       probe's first job dies; the job runs again on another node, never
#       recorded as the MPI's failure; a job lost three times (its node set
#       down each time) is a launch error. The fixture's cluster is not
#       touched.
#   cluster_campaign            on the fixture's four nodes: --max-jobs 2
#       against one job at a time (the same jobs, the same INI, at most 2
#       jobs in flight), its journal replayed, killed and started again.
string(MD5 campaign_hash "${CMAKE_BINARY_DIR}/campaign")
string(SUBSTRING "${campaign_hash}" 0 8 campaign_id)
string(SUBSTRING "${campaign_hash}" 0 3 campaign_offset)
# 40000..48190 (slurmd one up): apart from tests/launchers' and the fixture's
math(EXPR campaign_port "40000 + 2 * 0x${campaign_offset}")
add_test(NAME cluster_campaign_node_lost
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/campaign-case.sh node_lost ${SCALEGUARD_STAGE_DIR}
                 $<TARGET_FILE:sgfault> /run/scaleguard-campaign-${campaign_id} ${campaign_port})
set_tests_properties(cluster_campaign_node_lost PROPERTIES LABELS "cluster;slurm;long" TIMEOUT 600
  ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
add_test(NAME cluster_campaign
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/campaign-case.sh campaign ${SCALEGUARD_STAGE_DIR}
                 $<TARGET_FILE:sgfault>)
set_tests_properties(cluster_campaign PROPERTIES LABELS "cluster;slurm;long" TIMEOUT 900
  FIXTURES_REQUIRED cluster ENVIRONMENT "${cluster_env}"
  ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
