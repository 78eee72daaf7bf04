#ifndef ROLLOUT_CGIT2_SHIM_H
#define ROLLOUT_CGIT2_SHIM_H
#include <git2.h>

/* git_libgit2_opts is variadic, which Swift cannot call: one fixed-signature wrapper per option we set. */
static inline int rollout_git_enable_fsync(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
static inline int rollout_git_enable_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
static inline int rollout_git_set_search_path(git_config_level_t level, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, path);
}

/* *_OPTIONS_INIT macros are not importable: expose them as functions. */
static inline git_repository_init_options rollout_git_repository_init_options(void) {
    git_repository_init_options o = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    return o;
}
/* Not libgit2, but the same module as the store that needs it: glibc declares
   posix_spawn_file_actions_addclosefrom_np (2.34 and later) only under _GNU_SOURCE, which Swift's
   Glibc module does not set. The store's git subprocess closes every inherited descriptor above
   stderr, so nothing git starts and leaves running holds rollout's caller (docs/teams.md). */
#include <spawn.h>
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
static inline int rollout_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#else
static inline int rollout_spawn_close_from(void *actions, int from) {
    (void)actions;
    (void)from;
    return 0;
}
#endif
/* POSIX_SPAWN_SETSID is declared only under _GNU_SOURCE on glibc: the signer of a commit runs in a
   session of its own, with no controlling terminal, so a passphrase prompt fails instead of waiting. */
#if defined(__linux__)
static inline short rollout_spawn_setsid_flag(void) { return 0x80; }
#elif defined(POSIX_SPAWN_SETSID)
static inline short rollout_spawn_setsid_flag(void) { return POSIX_SPAWN_SETSID; }
#else
static inline short rollout_spawn_setsid_flag(void) { return 0; }
#endif
#endif
