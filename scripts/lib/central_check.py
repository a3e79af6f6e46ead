# SPDX-License-Identifier: Apache-2.0
"""Does a deployed set of Maven artifacts pass the rules Maven Central applies to a publication?

Usage: central_check.py [--expect G:A,G:A,...] [--release] REPO
  REPO       a file repository that `mvn deploy -DaltDeploymentRepository=id::file://REPO` filled
  --expect   the exact set of artifacts that must be there: one missing or one more fails
  --release  also what only a release needs: a version without -SNAPSHOT and an ASCII-armored
             .asc signature of every file (the release profile of jrdma's parent POM signs them;
             Central verifies them against the public key servers, this does not)

Prints one line per artifact and per failure, and "central-check: ..." last; exits 0 only when
every artifact passes. The rules (central.sonatype.org, "Requirements"):

- coordinates: the POM's groupId, artifactId and version are those of its place in REPO;
- metadata: name, description, url, at least one license (name and url), at least one developer
  (name), scm (url and connection), each non-empty and with no ${...} left unresolved. Central
  reads the effective POM, so all but name may come from a parent POM; that parent must be in
  REPO (published with it) and pass too;
- files: a jar (any packaging but pom) comes with -sources.jar and -javadoc.jar; here also: each
  is a zip that holds what its name promises (classes, .java files, an index.html);
- checksums: every file has .md5 and .sha1 that match it (.sha256 and .sha512 are optional;
  checked when present);
- dependencies: a compile- or runtime-scope dependency on an artifact of a group published here
  must be published here too (otherwise the users of the set cannot resolve it).
"""
import argparse
import hashlib
import os
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

NS = "{http://maven.apache.org/POM/4.0.0}"
CHECKSUMS = {"md5": True, "sha1": True, "sha256": False, "sha512": False}  # algorithm: required


def child(elem, path):
    """The text of elem/path (a/b/c, POM namespace or none), stripped, or None."""
    for ns in (NS, ""):
        found = elem.find("/".join(ns + p for p in path.split("/")))
        if found is not None:
            return (found.text or "").strip()
    return None


def children(elem, path):
    for ns in (NS, ""):
        found = elem.findall("/".join(ns + p for p in path.split("/")))
        if found:
            return found
    return []


class Pom:
    """One POM as deployed, with its parent (from the same repository) for inherited values."""

    def __init__(self, path, parent):
        self.path = path
        self.root = ET.parse(path).getroot()
        self.parent = parent
        self.props = {}
        for ns in (NS, ""):
            props = self.root.find(ns + "properties")
            if props is not None:
                for p in props:
                    self.props[p.tag.replace(NS, "")] = (p.text or "").strip()

    def own(self, path):
        return child(self.root, path)

    def inherited(self, path):
        """Maven's inheritance for a single value: the nearest POM that sets it."""
        value = self.own(path)
        if value is None and self.parent is not None:
            return self.parent.inherited(path)
        return value

    def inherited_list(self, path):
        """For licenses, developers: a child that lists any replaces its parent's list."""
        found = children(self.root, path)
        if not found and self.parent is not None:
            return self.parent.inherited_list(path)
        return found

    @property
    def group_id(self):
        return self.own("groupId") or (self.own("parent/groupId"))

    @property
    def version(self):
        return self.own("version") or self.own("parent/version")

    @property
    def packaging(self):
        return self.own("packaging") or "jar"

    def prop(self, name):
        builtin = {"project.version": self.version, "project.groupId": self.group_id,
                   "project.artifactId": self.own("artifactId")}
        if name in builtin:
            return builtin[name]
        if name in self.props:
            return self.props[name]
        return self.parent.prop(name) if self.parent is not None else None

    def resolve(self, value, depth=0):
        """${...} replaced from the properties of this POM and its parents; unknown ones stay."""
        if value is None or depth > 10:
            return value
        def sub(m):
            v = self.prop(m.group(1))
            return m.group(0) if v is None else self.resolve(v, depth + 1)
        return re.sub(r"\$\{([^}]+)\}", sub, value)


def read_metadata(version_dir):
    """SNAPSHOT deploys name files by timestamp: maven-metadata.xml maps (classifier, extension)
    to the latest build's name part ("1.0-20260101.120000-3"). None for a release."""
    path = os.path.join(version_dir, "maven-metadata.xml")
    if not os.path.exists(path):
        return None
    root = ET.parse(path).getroot()
    names = {}
    for sv in root.iter("snapshotVersion"):
        names[(child(sv, "classifier") or "", child(sv, "extension"))] = child(sv, "value")
    return names


class Artifact:
    def __init__(self, repo, group, artifact, version):
        self.repo, self.group, self.artifact, self.version = repo, group, artifact, version
        self.dir = os.path.join(repo, *group.split("."), artifact, version)
        self.snapshot_names = read_metadata(self.dir) if version.endswith("-SNAPSHOT") else None

    @property
    def key(self):
        return f"{self.group}:{self.artifact}"

    def file(self, extension, classifier=""):
        """The path of the (latest) file for classifier and extension, existing or not."""
        if self.snapshot_names is not None:
            value = self.snapshot_names.get((classifier, extension))
            if value is None:
                return os.path.join(self.dir, f"{self.artifact}-{self.version}"
                                    f"{'-' + classifier if classifier else ''}.{extension}")
        else:
            value = self.version
        return os.path.join(self.dir, f"{self.artifact}-{value}{'-' + classifier if classifier else ''}.{extension}")


def find_artifacts(repo):
    """Every artifact version in repo: a directory G/.../A/V that holds a .pom."""
    found = []
    for dirpath, _, files in os.walk(repo):
        if any(f.endswith(".pom") for f in files):
            rel = os.path.relpath(dirpath, repo).split(os.sep)
            if len(rel) >= 3:
                found.append(Artifact(repo, ".".join(rel[:-2]), rel[-2], rel[-1]))
    return sorted(found, key=lambda a: (a.group, a.artifact, a.version))


class Checker:
    def __init__(self, repo, release):
        self.repo, self.release = repo, release
        self.artifacts = find_artifacts(repo)
        self.by_key = {a.key: a for a in self.artifacts}
        self.poms = {}

    def pom(self, artifact):
        """The artifact's POM with its parent chain (None when the parent is not in the repo)."""
        if artifact.key in self.poms:
            return self.poms[artifact.key]
        path = artifact.file("pom")
        parent = None
        probe = ET.parse(path).getroot()
        parent_key = None
        if child(probe, "parent/artifactId") is not None:
            parent_key = f"{child(probe, 'parent/groupId')}:{child(probe, 'parent/artifactId')}"
            if parent_key in self.by_key:
                parent = self.pom(self.by_key[parent_key])
        pom = Pom(path, parent)
        pom.parent_key = parent_key
        self.poms[artifact.key] = pom
        return pom

    def check(self, a):
        """The failures of one artifact, as sentences."""
        bad = []
        pom_path = a.file("pom")
        if not os.path.exists(pom_path):
            return [f"no POM ({os.path.basename(pom_path)})"]
        try:
            pom = self.pom(a)
        except ET.ParseError as e:
            return [f"the POM is not XML: {e}"]
        if pom.parent_key is not None and pom.parent is None:
            bad.append(f"its parent {pom.parent_key} is not in the deployed set (users could not resolve this POM)")
        # Coordinates.
        for what, got, want in (("groupId", pom.group_id, a.group), ("artifactId", pom.own("artifactId"), a.artifact),
                                ("version", pom.version, a.version)):
            if got != want:
                bad.append(f"the POM's {what} is {got!r}, its place in the repository says {want!r}")
        if self.release and a.version.endswith("-SNAPSHOT"):
            bad.append(f"version {a.version}: Central publishes releases only (a SNAPSHOT goes to its snapshot repository)")
        # Metadata.
        def value(label, v):
            v = pom.resolve(v)
            if not v:
                bad.append(f"no {label}")
            elif "${" in v:
                bad.append(f"{label} has an unresolved property: {v}")
        value("name", pom.own("name"))
        for path in ("description", "url", "scm/url", "scm/connection"):
            value(path.replace("/", " "), pom.inherited(path))
        licenses = pom.inherited_list("licenses/license")
        if not licenses:
            bad.append("no license")
        for lic in licenses:
            value("license name", child(lic, "name"))
            value("license url", child(lic, "url"))
        developers = pom.inherited_list("developers/developer")
        if not developers:
            bad.append("no developer")
        for dev in developers:
            value("developer name", child(dev, "name"))
        # Files.
        files = [pom_path]
        if pom.packaging != "pom":
            for classifier, wants, label in (("", ".class", "classes"), ("sources", ".java", ".java files"),
                                             ("javadoc", "index.html", "index.html")):
                path = a.file("jar", classifier)
                name = os.path.basename(path)
                if not os.path.exists(path):
                    bad.append(f"no {name}" + ("" if not classifier else f" (Central requires the {classifier} jar)"))
                    continue
                files.append(path)
                try:
                    with zipfile.ZipFile(path) as z:
                        if not any(n.endswith(wants) for n in z.namelist()):
                            bad.append(f"{name} holds no {label}")
                except zipfile.BadZipFile:
                    bad.append(f"{name} is not a jar (zip)")
        # Checksums and signatures.
        for path in files:
            name = os.path.basename(path)
            with open(path, "rb") as f:
                data = f.read()
            for algorithm, required in CHECKSUMS.items():
                sum_path = f"{path}.{algorithm}"
                if not os.path.exists(sum_path):
                    if required:
                        bad.append(f"no {name}.{algorithm}")
                    continue
                with open(sum_path) as f:
                    words = f.read().split()
                if not words or words[0].lower() != hashlib.new(algorithm, data).hexdigest():
                    bad.append(f"{name}.{algorithm} does not match {name}")
            if self.release:
                if not os.path.exists(f"{path}.asc"):
                    bad.append(f"no {name}.asc (sign with the release profile)")
                else:
                    with open(f"{path}.asc", "rb") as f:
                        if not f.read(64).startswith(b"-----BEGIN PGP SIGNATURE-----"):
                            bad.append(f"{name}.asc is not an ASCII-armored OpenPGP signature")
        # Dependencies users would have to resolve from this set.
        groups = {x.group for x in self.artifacts}
        for dep in children(pom.root, "dependencies/dependency"):
            g, art = pom.resolve(child(dep, "groupId")), child(dep, "artifactId")
            scope = child(dep, "scope") or self.managed_scope(pom, g, art) or "compile"
            if g in groups and scope in ("compile", "runtime") and f"{g}:{art}" not in self.by_key:
                bad.append(f"depends on {g}:{art} ({scope}), which is not in the deployed set")
        return bad

    def managed_scope(self, pom, group, artifact):
        p = pom
        while p is not None:
            for dep in children(p.root, "dependencyManagement/dependencies/dependency"):
                if p.resolve(child(dep, "groupId")) == group and child(dep, "artifactId") == artifact:
                    return child(dep, "scope")
            p = p.parent
        return None


def main(argv):
    parser = argparse.ArgumentParser(description="Check a deployed Maven repository against Maven Central's rules.")
    parser.add_argument("repo")
    parser.add_argument("--expect", default=None, help="G:A,G:A,...: the exact set of artifacts")
    parser.add_argument("--release", action="store_true")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.repo):
        print(f"central-check: {args.repo} is not a directory", file=sys.stderr)
        return 2
    checker = Checker(args.repo, args.release)
    failures = 0
    if not checker.artifacts:
        print(f"central-check: FAIL: no artifact in {args.repo}")
        return 1
    if args.expect is not None:
        expected = {e.strip() for e in args.expect.split(",") if e.strip()}
        found = set(checker.by_key)
        for key in sorted(expected - found):
            print(f"FAIL {key}: expected, not deployed")
            failures += 1
        for key in sorted(found - expected):
            print(f"FAIL {key}: deployed, not expected (a module that publishes nothing must skip install and deploy)")
            failures += 1
    for a in checker.artifacts:
        bad = checker.check(a)
        kinds = "pom" if os.path.exists(a.file("pom")) and checker.pom(a).packaging == "pom" else "jar, sources, javadoc"
        print(f"{'ok  ' if not bad else 'FAIL'} {a.group}:{a.artifact}:{a.version} ({kinds})")
        for b in bad:
            print(f"       {b}")
        failures += len(bad)
    n = len(checker.artifacts)
    if failures:
        print(f"central-check: FAIL: {failures} problem(s) in {n} artifact(s) of {args.repo}")
        return 1
    print(f"central-check: {n} artifact(s) pass Maven Central's rules"
          + (" for a release" if args.release else " (signatures and release version not checked: --release)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
