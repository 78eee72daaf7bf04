package dev.rollout.client.android;

import android.content.Context;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.res.Configuration;
import android.content.res.Resources;
import java.io.File;

/** A Context with what the glue reads from one: a no-backup folder and a package with a version name. */
class FakeContext extends Context {
    final File noBackup;
    final String packageName;
    /** Or null: the package is not installed (NameNotFoundException). */
    final PackageInfo info;

    FakeContext(File noBackup, String versionName) {
        this.noBackup = noBackup;
        this.packageName = "com.example.shelf";
        if (versionName == null) {
            this.info = null;
        } else {
            this.info = new PackageInfo();
            this.info.versionName = versionName.isEmpty() ? null : versionName;
        }
    }

    @Override
    public File getNoBackupFilesDir() {
        return noBackup;
    }

    @Override
    public Resources getResources() {
        throw new UnsupportedOperationException("the tests give Resources per locale");
    }

    @Override
    public Context getApplicationContext() {
        return this;
    }

    @Override
    public PackageManager getPackageManager() {
        return new PackageManager() {
            @Override
            public PackageInfo getPackageInfo(String name, int flags) throws NameNotFoundException {
                if (info == null || !name.equals(packageName)) throw new NameNotFoundException(name);
                return info;
            }
        };
    }

    @Override
    public String getPackageName() {
        return packageName;
    }

    @Override
    public Context createConfigurationContext(Configuration overrideConfiguration) {
        throw new UnsupportedOperationException("the tests give Resources per locale");
    }
}
