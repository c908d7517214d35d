/* launch_preload.so: a library that does nothing but exist, so launch_check
 * can tell (dlsym on the whole process) whether the launcher preloaded it. */
int launch_preload_marker(void);

int launch_preload_marker(void)
{
    return 1;
}
