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

/* *_OPTIONS_INIT macros are not importable: expose them as functions. */
static inline git_repository_init_options rollout_git_repository_init_options(void) {
    git_repository_init_options o = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    return o;
}
#endif
