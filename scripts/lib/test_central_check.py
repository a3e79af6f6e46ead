# SPDX-License-Identifier: Apache-2.0
"""central_check.py against small deployed repositories: one that passes, and one broken way per
rule, each of which must fail. Run: python3 -m unittest discover -s scripts/lib -p 'test_*.py'"""
import contextlib
import hashlib
import io
import os
import shutil
import tempfile
import unittest
import zipfile

import central_check

PARENT = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>lib-parent</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <name>lib</name>
  <description>A library</description>
  <url>${{home}}</url>
  <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
  <developers><developer><name>The maintainers</name></developer></developers>
  <scm><connection>scm:git:${{home}}.git</connection><url>${{home}}</url></scm>
  <properties><home>https://example.org/lib</home></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.example</groupId><artifactId>lib-test-support</artifactId><version>{version}</version><scope>test</scope></dependency>
  </dependencies></dependencyManagement>
</project>
"""

CHILD = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example</groupId><artifactId>lib-parent</artifactId><version>{version}</version></parent>
  <artifactId>lib</artifactId>
  <name>lib API</name>
  <dependencies>
    <dependency><groupId>org.example</groupId><artifactId>lib-test-support</artifactId></dependency>
  </dependencies>
</project>
"""


class Repo:
    """A file repository as `mvn deploy` lays it out (release or SNAPSHOT)."""

    def __init__(self, root, version="1.0"):
        self.root, self.version = root, version
        self.snapshot = version.endswith("-SNAPSHOT")
        self.stamp = version.replace("-SNAPSHOT", "-20260101.120000-1")

    def dir(self, artifact):
        return os.path.join(self.root, "org", "example", artifact, self.version)

    def path(self, artifact, ext, classifier=""):
        return os.path.join(self.dir(artifact), f"{artifact}-{self.stamp}{'-' + classifier if classifier else ''}.{ext}")

    def put(self, artifact, ext, data, classifier=""):
        path = self.path(artifact, ext, classifier)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        for algorithm in ("md5", "sha1"):
            with open(f"{path}.{algorithm}", "w") as f:
                f.write(hashlib.new(algorithm, data).hexdigest())
        return path

    def metadata(self, artifact, files):
        if not self.snapshot:
            return
        entries = "".join(f"<snapshotVersion>{f'<classifier>{c}</classifier>' if c else ''}"
                          f"<extension>{e}</extension><value>{self.stamp}</value></snapshotVersion>"
                          for c, e in files)
        with open(os.path.join(self.dir(artifact), "maven-metadata.xml"), "w") as f:
            f.write(f"<metadata><versioning><snapshotVersions>{entries}</snapshotVersions></versioning></metadata>")


def jar(*names):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n in names:
            z.writestr(n, "x")
    return buf.getvalue()


def publish(repo, parent=PARENT, child=CHILD, jars=True):
    repo.put("lib-parent", "pom", parent.format(version=repo.version).encode())
    repo.metadata("lib-parent", [("", "pom")])
    repo.put("lib", "pom", child.format(version=repo.version).encode())
    if jars:
        repo.put("lib", "jar", jar("META-INF/MANIFEST.MF", "org/example/Lib.class"))
        repo.put("lib", "jar", jar("org/example/Lib.java"), "sources")
        repo.put("lib", "jar", jar("index.html", "org/example/Lib.html"), "javadoc")
    repo.metadata("lib", [("", "pom"), ("", "jar"), ("sources", "jar"), ("javadoc", "jar")])


class CentralCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="central-check-test")
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_check(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = central_check.main([*args, self.tmp])
        return code, out.getvalue()

    def assert_fails(self, message, *args):
        code, out = self.run_check(*args)
        self.assertEqual(1, code, out)
        self.assertIn(message, out)

    def test_a_complete_release_passes(self):
        publish(Repo(self.tmp))
        code, out = self.run_check("--expect", "org.example:lib-parent,org.example:lib")
        self.assertEqual(0, code, out)
        self.assertIn("central-check: 2 artifact(s) pass", out)

    def test_a_complete_snapshot_passes_with_timestamped_names(self):
        publish(Repo(self.tmp, "1.0-SNAPSHOT"))
        code, out = self.run_check()
        self.assertEqual(0, code, out)

    def test_an_empty_repository_fails(self):
        self.assert_fails("no artifact")

    def test_missing_sources_jar_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        os.remove(repo.path("lib", "jar", "sources"))
        self.assert_fails("no lib-1.0-sources.jar")

    def test_missing_javadoc_jar_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        os.remove(repo.path("lib", "jar", "javadoc"))
        self.assert_fails("no lib-1.0-javadoc.jar")

    def test_an_empty_javadoc_jar_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        repo.put("lib", "jar", jar("META-INF/MANIFEST.MF"), "javadoc")
        self.assert_fails("lib-1.0-javadoc.jar holds no index.html")

    def test_missing_checksum_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        os.remove(repo.path("lib", "jar") + ".sha1")
        self.assert_fails("no lib-1.0.jar.sha1")

    def test_wrong_checksum_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        with open(repo.path("lib", "pom") + ".md5", "w") as f:
            f.write("0" * 32)
        self.assert_fails("lib-1.0.pom.md5 does not match")

    # One metadata rule each: which POM, the text replaced in it, by what, and the failure. Metadata
    # the child inherits passes (the complete release above), so the parent is where it goes
    # missing; the name is the child's own.
    BROKEN_POMS = [
        ("parent", "<developers><developer><name>The maintainers</name></developer></developers>", "",
         "no developer"),
        ("parent", "<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>", "", "no license url"),
        ("parent", "<url>${{home}}</url></scm>", "</scm>", "no scm url"),
        ("child", "<name>lib API</name>", "", "no name"),
        ("parent", "<properties><home>https://example.org/lib</home></properties>", "",
         "url has an unresolved property: ${home}"),
    ]

    def test_missing_or_unresolved_metadata_fails(self):
        for pom, text, replacement, message in self.BROKEN_POMS:
            with self.subTest(message):
                shutil.rmtree(self.tmp)
                if pom == "parent":
                    publish(Repo(self.tmp), parent=PARENT.replace(text, replacement))
                else:
                    publish(Repo(self.tmp), child=CHILD.replace(text, replacement))
                self.assert_fails(message)

    def test_parent_not_deployed_fails(self):
        repo = Repo(self.tmp)
        publish(repo)
        shutil.rmtree(os.path.dirname(repo.dir("lib-parent")))
        self.assert_fails("its parent org.example:lib-parent is not in the deployed set")

    def test_unexpected_and_missing_artifacts_fail(self):
        publish(Repo(self.tmp))
        self.assert_fails("FAIL org.example:lib: deployed, not expected", "--expect", "org.example:lib-parent,org.example:lib-api")
        self.assert_fails("FAIL org.example:lib-api: expected, not deployed", "--expect", "org.example:lib-parent,org.example:lib-api")

    def test_a_compile_dependency_left_unpublished_fails(self):
        publish(Repo(self.tmp), parent=PARENT.replace("<scope>test</scope>", ""))
        self.assert_fails("depends on org.example:lib-test-support (compile), which is not in the deployed set")

    def test_release_mode_refuses_snapshots_and_unsigned_files(self):
        publish(Repo(self.tmp, "1.0-SNAPSHOT"))
        self.assert_fails("Central publishes releases only", "--release")
        self.assert_fails("no lib-1.0-20260101.120000-1.jar.asc", "--release")

    def test_release_mode_passes_a_signed_release_and_refuses_a_bad_signature(self):
        repo = Repo(self.tmp)
        publish(repo)
        signed = [os.path.join(d, f) for d, _, files in os.walk(self.tmp) for f in files
                  if f.endswith((".pom", ".jar"))]
        for path in signed:
            with open(path + ".asc", "w") as f:
                f.write("-----BEGIN PGP SIGNATURE-----\n\nx\n-----END PGP SIGNATURE-----\n")
        code, out = self.run_check("--release")
        self.assertEqual(0, code, out)
        self.assertIn("for a release", out)
        with open(repo.path("lib", "jar") + ".asc", "w") as f:
            f.write("not a signature")
        self.assert_fails("lib-1.0.jar.asc is not an ASCII-armored OpenPGP signature", "--release")


if __name__ == "__main__":
    unittest.main()
