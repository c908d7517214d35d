# The layer with its ranks on different hosts of the cluster (issue 48, item
# 5): every test here runs this MPI's own launcher with a host list
# (sg_mpi_launch NODES: ranks in blocks, ceil(P/N) per host), label
# cluster, fixture cluster. The programs are the other folders' (tests/
# protect, w1a, watchdog, checks, trace); the benchmark's world line shows
# where the ranks ran (P ranks on N distinct hosts, by name).
string(REPLACE "," ";" layer_hosts "${cluster_hosts}")
list(GET layer_hosts 0 host1)
list(GET layer_hosts 1 host2)
list(GET layer_hosts 2 host3)
list(GET layer_hosts 3 host4)
set(layer_world_4 "world procs=4 hosts=4 host_names=${host1},${host2},${host3},${host4}$")
set(layer_world_2 "world procs=4 hosts=2 host_names=${host1},${host2}$")
set(layer_dir ${CMAKE_CURRENT_BINARY_DIR}/layer)
set(preload_fault "LD_PRELOAD=$<TARGET_FILE:scaleguard>:$<TARGET_FILE:sgfault>")

# The agreement on the bounds (protect/agree.c) with the INI on one node
# only: each node sees its own CLUSTER_PREFIX/tmp, so SCALEGUARD_CONFIG
# there exists on node 3 alone (on-nodes.sh puts it there). Rank 2, alone
# there, loads two bounds that a call of Allgatherv of 1,000 elements per
# rank meets; the others cannot open the file. Every rank goes on with
# Class D only (no call cut, every byte right), and rank 0 says it once,
# naming the hosts of each group of ranks. The control: the INI on every
# node, where the bound applies (W1-B) and nothing is said.
file(WRITE ${layer_dir}/agree.ini "[MPI_Allgatherv]\nclass = G\ntrigger = snP\nbound = 2000\n\n"
                                  "[MPI_Gatherv]\nclass = G\ntrigger = snP\nbound = 2000\n")
set(node_ini ${cluster_prefix}/tmp/scaleguard-layer-agree.ini)
sg_mpi_launch(launch PROCS 4 NODES 4 ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>"
              "SCALEGUARD_CONFIG=${node_ini}" SCALEGUARD_LOG=info)
set(bench_allgatherv $<TARGET_FILE:scaleguard-bench> -c MPI_Allgatherv -n 1000)
set(path "[^ ]*/tmp/scaleguard-layer-agree.ini")
add_test(NAME cluster_layer_agree_ini_on_one_node
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/on-nodes.sh ${layer_dir}/agree.ini ${node_ini} ${host3}
          sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh 0 "${layer_world_4}"
             --also "routine=MPI_Allgatherv count=1000 .*result=pass"
          sh ${PROJECT_SOURCE_DIR}/tests/protect/agree-case.sh
             "ranks 0-1,3 \\(hosts ${host1},${host2},${host4}\\): ${path}: cannot open: No such file or directory. rank 2 \\(host ${host3}\\): ${path}: 2 bound entries \\(digest [0-9a-f]+\\)$"
             "!class G"
          sh -c "exec \"$@\" >&2" sh ${launch} ${bench_allgatherv})
add_test(NAME cluster_layer_agree_ini_on_every_node
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/on-nodes.sh ${layer_dir}/agree.ini ${node_ini}
             ${cluster_hosts}
          sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh 0 "${layer_world_4}"
             --also "routine=MPI_Allgatherv count=1000 .*result=pass"
          sh ${PROJECT_SOURCE_DIR}/tests/protect/agree-case.sh -
             "^scaleguard: MPI_Allgatherv: class G, n=1000 s=1 P=4: W1-B$"
          sh -c "exec \"$@\" >&2" sh ${launch} ${bench_allgatherv})
# Class D protection goes on alike on every rank: Allgatherv's wrapped
# displacements (tests/protect's d_layout, two windows; every rank decides
# alone) are moved by MPICH's large-count Allgatherv (W3) or over windows.
if(SCALEGUARD_MPI_FLAVOR STREQUAL "mpich")
  set(d_how "W3 \\(PMPI_Allgatherv_c\\)$")
else()
  set(d_how "W1-B over 2 displacement windows$")
endif()
add_test(NAME cluster_layer_agree_ini_on_one_node_class_d
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/on-nodes.sh ${layer_dir}/agree.ini ${node_ini} ${host3}
          sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh 0
             "d_layout: MPI_Allgatherv P=4 .*: every byte right"
          sh ${PROJECT_SOURCE_DIR}/tests/protect/agree-case.sh
             "ranks 0-1,3 \\(hosts ${host1},${host2},${host4}\\): .* rank 2 \\(host ${host3}\\): "
             "^scaleguard: MPI_Allgatherv: class D, n=1004 s=1 P=4: ${d_how}"
          ${launch} $<TARGET_FILE:d_layout> -c MPI_Allgatherv -n 1001 -g 1500000000)
set_tests_properties(cluster_layer_agree_ini_on_one_node cluster_layer_agree_ini_on_every_node
                     cluster_layer_agree_ini_on_one_node_class_d
  PROPERTIES LABELS cluster FIXTURES_REQUIRED cluster TIMEOUT 60
  ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}"
  RESOURCE_LOCK cluster_layer_agree_ini) # one file, put on other nodes by each

# Protected calls whose ranks sit on different nodes: the fault preload
# crashes the routine past a small bound (tests/protect), the layer keeps
# every sub-call under it, and the benchmark checks every byte. One rank
# per node (two per node for Allreduce: shared memory within, TCP across).
# name|nodes|routine|trigger|bound|count|INI's workaround line ("-": auto)|benchmark's options|what ran
set(protected_cases
  "alltoall_snP_auto|4|MPI_Alltoall|snP|4000|5000|-||W1-B"
  "scatter_n_auto_root2|4|MPI_Scatter|n|1000|3000|-|-R 2|W2"
  "allgather_n_w2|4|MPI_Allgather|n|1000|3000|W2||W2"
  "gatherv_snP_w1b_root3|4|MPI_Gatherv|snP|4000|5000|W1-B|-R 3|W1-B \\(blocks over [0-9]+ point to point\\)"
  "allreduce_n_w1b_2_nodes|2|MPI_Allreduce|n|1000|3000|W1-B||W1-B"
  "iallgather_snP_auto|4|MPI_Iallgather|snP|4000|5000|-||W1-B")
foreach(line IN LISTS protected_cases)
  string(REPLACE "|" ";" fields "${line}")
  list(GET fields 0 name)
  list(GET fields 1 nodes)
  list(GET fields 2 routine)
  list(GET fields 3 trigger)
  list(GET fields 4 bound)
  list(GET fields 5 count)
  list(GET fields 6 workaround)
  list(GET fields 7 options)
  list(GET fields 8 how)
  separate_arguments(options)
  set(ini ${layer_dir}/${name}.ini)
  set(entry "[${routine}]\nclass = G\ntrigger = ${trigger}\nbound = ${bound}\n")
  if(NOT workaround STREQUAL "-")
    string(APPEND entry "workaround = ${workaround}\n")
  endif()
  file(WRITE ${ini} "${entry}")
  sg_expect_test(cluster_layer_${name} PROCS 4 NODES ${nodes} STDOUT
    ENV ${preload_fault} "SCALEGUARD_CONFIG=${ini}" SCALEGUARD_LOG=info
        "SCALEGUARD_FAULT_ROUTINES=${routine}" "SCALEGUARD_FAULT_TRIGGER=${trigger}"
        "SCALEGUARD_FAULT_BOUND=${bound}"
    EXPECT 0 "^scaleguard: ${routine}: class G, n=[0-9]+ s=1 P=4: ${how}$"
      --also "routine=${routine} count=${count} .*result=pass" --also "${layer_world_${nodes}}"
      --not "sgfault:"
    RUN $<TARGET_FILE:scaleguard-bench> -c ${routine} -n ${count} ${options})
endforeach()
# The control: the same fault preload without the layer crashes the call.
sg_expect_test(cluster_layer_alltoall_snP_unprotected PROCS 4 NODES 4
  ENV "LD_PRELOAD=$<TARGET_FILE:sgfault>" SCALEGUARD_FAULT_ROUTINES=MPI_Alltoall
      SCALEGUARD_FAULT_TRIGGER=snP SCALEGUARD_FAULT_BOUND=4000
  EXPECT nonzero "sgfault: MPI_Alltoall n=[0-9]+ s=1 P=4 exceeds snP bound 4000: crash"
  RUN $<TARGET_FILE:scaleguard-bench> -c MPI_Alltoall -n 5000)

# Class D across nodes, small (tests/protect's d_layout: displacements
# summed in int wrap past 2^31 with a gap between the blocks, which are only
# reserved): unprotected the root's Scatterv reaches memory outside its
# buffer; protected (no INI: Class D) every byte arrives, by MPICH's
# large-count Scatterv (W3) or one displacement window (W1-B).
if(SCALEGUARD_MPI_FLAVOR STREQUAL "mpich")
  set(d_how "W3 \\(PMPI_Scatterv_c\\)$")
else()
  set(d_how "W1-B over 1 displacement window$")
endif()
# (a wild address in a send over TCP: the kernel's EFAULT, not a SIGSEGV)
set(layer_wild "${SG_MPI_WILD_ACCESS}|Bad address")
set(d_one_window -n 1001 -g 1000000000 -r 2)
sg_expect_test(cluster_layer_d_scatterv_unprotected PROCS 4 NODES 4
  EXPECT nonzero "${layer_wild}"
  RUN $<TARGET_FILE:d_layout> -c MPI_Scatterv ${d_one_window})
sg_expect_test(cluster_layer_d_scatterv PROCS 4 NODES 4
  ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>" SCALEGUARD_LOG=info
  EXPECT 0 "MPI_Scatterv: class D, n=1004 s=1 P=4: ${d_how}"
    --also "d_layout: MPI_Scatterv P=4 .*every byte right"
  RUN $<TARGET_FILE:d_layout> -c MPI_Scatterv ${d_one_window})

# Real scale across nodes (label long, one at a time, not in CI): tests/
# protect's large_d_scatterv_768Mi with one rank per node, 3 GiB at the root
# and 768 MiB per other rank (about 5.5 GiB), every byte over TCP.
set(d_768Mi -c MPI_Scatterv -n 805306368)
sg_mpi_launch(launch PROCS 4 NODES 4)
add_test(NAME cluster_layer_d_scatterv_768Mi_unprotected
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh nonzero "${layer_wild}"
          ${launch} $<TARGET_FILE:d_layout> ${d_768Mi})
sg_mpi_launch(launch PROCS 4 NODES 4 ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>"
              SCALEGUARD_LOG=info)
add_test(NAME cluster_layer_d_scatterv_768Mi_protected
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/fault/expect.sh 0
          "MPI_Scatterv: class D, n=805306371 s=1 P=4: ${d_how}"
          --also "d_layout: MPI_Scatterv P=4 .*every byte right"
          ${launch} $<TARGET_FILE:d_layout> ${d_768Mi})
set_tests_properties(cluster_layer_d_scatterv_768Mi_unprotected
                     cluster_layer_d_scatterv_768Mi_protected PROPERTIES
  LABELS "cluster;long" FIXTURES_REQUIRED cluster RUN_SERIAL ON TIMEOUT 900
  ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")

# W1-A's groups across nodes: one rank per node, so every group of 2 spans
# two hosts, and its sub-communicators (MPI_Comm_create_group over the
# parent's private copy) join ranks of different nodes. Each sub-call stays
# under the fault preload's bound (s n P <= 4000 with n = 1500); the
# I-form runs over the communicators its blocking call made. Then W1-A
# itself against the plain call, byte for byte on every rank (tests/w1a;
# 40 s across nodes here, so label long).
foreach(case IN ITEMS "MPI_Allgather|" "MPI_Gather|-R 2" "MPI_Bcast|-R 3" "MPI_Allreduce|"
                      "MPI_Iallreduce|")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 routine)
  list(GET fields 1 options)
  separate_arguments(options)
  string(TOLOWER ${routine} name)
  string(REPLACE "mpi_" "" name ${name})
  sg_w1a_entries(entries first ${routine} "class = G\ntrigger = snP\nbound = 4000\nworkaround = W1-A\n")
  set(ini ${layer_dir}/${name}-w1a.ini)
  file(WRITE ${ini} "${entries}")
  sg_expect_test(cluster_layer_${name}_w1a PROCS 4 NODES 4 STDOUT
    ENV ${preload_fault} "SCALEGUARD_CONFIG=${ini}" SCALEGUARD_LOG=info
        "SCALEGUARD_FAULT_ROUTINES=${routine}" SCALEGUARD_FAULT_TRIGGER=snP
        SCALEGUARD_FAULT_BOUND=4000
    EXPECT 0 "^scaleguard: ${routine}: class G, n=1500 s=1 P=4: W1-A \\(groups of 2\\)$"
      --also "routine=${routine} count=1500 .*result=pass" --also "${layer_world_4}"
      --not "sgfault:" --not "cannot apply"
    RUN $<TARGET_FILE:scaleguard-bench> -c ${routine} -n 1500 ${options} ${first})
endforeach()
sg_expect_test(cluster_layer_w1a_p4 PROCS 4 NODES 4 STDOUT TIMEOUT 300
  EXPECT 0 "^test_w1a: 4 ranks, [0-9]+ calls compared byte for byte$"
  RUN $<TARGET_FILE:test_w1a>)
set_tests_properties(cluster_layer_w1a_p4 PROPERTIES LABELS "cluster;long" RUN_SERIAL ON)

# The watchdog (tests/watchdog's hang.c, limit 2 s, action abort) on hangs
# whose ranks sit on different nodes: the cause, and every rank's line with
# the host it is on. Its directory is in the build tree, which every node
# sees. Then the same directory on each node's own tmp: one message naming
# the first host that does not see rank 0's state, no rank watched, and the
# program's end (never a report that calls the other nodes' ranks gone).
set(R "rank [0-9]")
set(ranks_on_hosts)
foreach(rank RANGE 3)
  math(EXPR node "${rank} + 1")
  list(APPEND ranks_on_hosts --also
       "^scaleguard: watchdog:   rank ${rank} \\(${host${node}}, pid [0-9]+\\) is ")
endforeach()
foreach(case IN ITEMS
    "collectives|ranks in different collectives on communicator [0-9a-f]+: ranks 0,2-3 in MPI_Barrier \\(call 2\\). rank 1 in MPI_Allreduce \\(call 2\\)$"
    "ssend_cycle|deadlock, a cycle of blocking calls: (${R} \\(MPI_Ssend\\),? (which )?waits for ){4}${R}$")
  string(REGEX MATCH "^([^|]*)[|](.*)$" fields "${case}")
  set(name ${CMAKE_MATCH_1})
  set(cause "${CMAKE_MATCH_2}")
  sg_expect_test(cluster_layer_watchdog_${name} PROCS 4 NODES 4 STDOUT
    ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>" SCALEGUARD_CHECK=none SCALEGUARD_WATCHDOG=2
        SCALEGUARD_WATCHDOG_ACTION=abort
        SCALEGUARD_WATCHDOG_DIR=${layer_dir}/states-watchdog_${name}
    EXPECT nonzero "^scaleguard: watchdog: cause: ${cause}"
      --also "^scaleguard: watchdog: ${R} has been in MPI_[A-Za-z]+ for [23][.][0-9] s \\(limit 2 s\\). what every rank is doing:$"
      ${ranks_on_hosts}
      --also "^scaleguard: watchdog: ending the job \\(exit code 14 from ${R}\\)$"
      --not "hang: ${name} done" --not " is gone"
    # MPICH's launcher over ssh does not end a job whose rank exited on
    # another node than the others (a plain _exit(14) without the layer
    # hangs it the same), nor does Open MPI's always (tests/watchdog): the
    # report comes within 4 s, the bound ends the rest
    WRAP timeout -k 2 10
    TIMEOUT 60
    RUN $<TARGET_FILE:hang> ${name})
endforeach()
sg_expect_test(cluster_layer_watchdog_dir_on_each_node PROCS 4 NODES 4 STDOUT
  ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>" SCALEGUARD_CHECK=none SCALEGUARD_WATCHDOG=2
      SCALEGUARD_WATCHDOG_ACTION=abort
      SCALEGUARD_WATCHDOG_DIR=${cluster_prefix}/tmp/scaleguard-layer-watchdog
  EXPECT 0 "^scaleguard: watchdog: rank 1: ${cluster_prefix}/tmp/scaleguard-layer-watchdog/[^ ]+ is not shared with rank 0's node: ${host2} does not see rank 0's state file there \\(SCALEGUARD_WATCHDOG_DIR must be a directory every node of the job sees\\). no rank is watched$"
    --also "hang: slow done" --not "cause:"
  RUN $<TARGET_FILE:hang> slow 1)

# The collective checks (tests/checks' mismatch.c, action abort) on wrong
# calls whose ranks sit on different nodes: exit code 13 before the wrong
# call reaches MPI, the ranks named by what each passed; on MPI_COMM_WORLD
# and on a communicator of world ranks 1 and 3 (hosts 2 and 4).
foreach(case IN ITEMS
    "op|MPI_Allreduce on MPI_COMM_WORLD \\(4 ranks\\), call 2 on it: the ranks pass different ops: ranks 0-1,3 MPI_SUM. rank 2 MPI_MAX"
    "signature|the type signatures differ: rank 0 with 2 x MPI_INT \\(2 basic elements\\). ranks 1-3 with 1 x MPI_DOUBLE \\(1 basic element\\)"
    "split_freed|MPI_Ibcast on a communicator \\(2 ranks: world ranks 1,3\\), call 1 on it: the type signatures differ: rank 0 with 1 x MPI_FLOAT \\(1 basic element\\). rank 1 with 1 x MPI_INT")
  string(REGEX MATCH "^([^|]*)[|](.*)$" fields "${case}")
  set(name ${CMAKE_MATCH_1})
  set(says "${CMAKE_MATCH_2}")
  sg_expect_test(cluster_layer_checks_${name} PROCS 4 NODES 4 STDOUT
    ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>" SCALEGUARD_CHECK=collectives
        SCALEGUARD_CHECK_ACTION=abort
    EXPECT 13 "scaleguard: collective check: .*${says}.*aborting the job"
      --not "mismatch: ${name} survived"
    RUN $<TARGET_FILE:mismatch> ${name})
endforeach()

# A trace written on several hosts (trace-across.sh): each rank writes its
# file on its own node's tmp; gathered into one directory, the files agree
# with what traced.c called (tests/trace/check-trace.sh, W1-B's Gatherv
# sub-calls too), each names its host, and scaleguard-trace merges them
# (tests/viewer's whole case; its summary names each rank's host).
set(gatherv_ini ${layer_dir}/trace-gatherv-w1b.ini)
file(WRITE ${gatherv_ini} "[MPI_Gatherv]\nclass = G\ntrigger = nP\nbound = 2\nworkaround = W1-B\n")
sg_mpi_launch(launch PROCS 4 NODES 4
  ENV "LD_PRELOAD=$<TARGET_FILE:scaleguard>"
      SCALEGUARD_TRACE=${cluster_prefix}/tmp/scaleguard-layer-trace
      "SCALEGUARD_CONFIG=${gatherv_ini}")
add_test(NAME cluster_layer_trace_on_4_hosts
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/trace-across.sh $<TARGET_FILE:scaleguard-trace>
          ${cluster_prefix} scaleguard-layer-trace ${cluster_hosts} "--did MPI_Gatherv W1-B"
          ${launch} $<TARGET_FILE:traced> 3)
set_tests_properties(cluster_layer_trace_on_4_hosts PROPERTIES LABELS cluster
  FIXTURES_REQUIRED cluster TIMEOUT 120 ENVIRONMENT_MODIFICATION "${SG_MPI_TEST_CLEAN_ENV}")
