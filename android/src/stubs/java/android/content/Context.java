package android.content;

import android.content.pm.PackageManager;
import android.content.res.Configuration;
import android.content.res.Resources;
import java.io.File;

/** Stand-in for android.content.Context (API 1): see ../../README.md. */
public abstract class Context {
    public Context() {}

    /** API 21. */
    public abstract File getNoBackupFilesDir();

    public abstract Resources getResources();

    public abstract Context getApplicationContext();

    public abstract PackageManager getPackageManager();

    public abstract String getPackageName();

    /** API 17. */
    public abstract Context createConfigurationContext(Configuration overrideConfiguration);
}
