"""Jar resolution with Maven into the local cache (never into git).

The poms under ops/maven/ declare what to fetch; `mvn dependency:copy-dependencies`
copies the runtime closure into ~/.cache/mqk/jars/<name>-<version>/. A marker file
records a complete copy so a half-finished download is never mistaken for a cache.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from adapter.config import mqk_home

KAFKA_VERSION = "4.3.1"
_MAVEN = Path(__file__).resolve().parent / "maven"
_DONE = ".resolved"


class JarResolutionError(RuntimeError):
    pass


def _resolve(pom_dir: Path, dest: Path, props: dict[str, str]) -> Path:
    if (dest / _DONE).exists():
        return dest
    mvn = shutil.which("mvn")
    if not mvn:
        raise JarResolutionError("mvn is not on PATH: install Maven (apt-get install maven)")
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        mvn,
        "-q",
        "-B",
        "-f",
        str(pom_dir / "pom.xml"),
        "dependency:copy-dependencies",
        f"-DoutputDirectory={dest}",
        "-DincludeScope=runtime",
    ] + [f"-D{k}={v}" for k, v in props.items()]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise JarResolutionError(f"mvn failed resolving {pom_dir.name} into {dest}:\n{tail}")
    (dest / _DONE).write_text(" ".join(cmd))
    return dest


def kafka_jars_dir(version: str = KAFKA_VERSION) -> Path:
    """The broker, its runtime dependencies, an SLF4J binding and kafka-tools."""
    return _resolve(
        _MAVEN / "kafka", mqk_home() / "jars" / f"kafka-{version}", {"kafka.version": version}
    )


def pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


def spark_kafka_jars(spark_version: str | None = None) -> list[str]:
    """The `spark.jars` list for Spark's Kafka source/sink at the installed pyspark's version.

    Jars whose artifact pyspark already ships (at any version) are left out, so the
    classpath never holds two scala-library or two slf4j-api versions.
    """
    version = spark_version or pyspark_version()
    dest = _resolve(
        _MAVEN / "spark-kafka",
        mqk_home() / "jars" / f"spark-kafka-{version}",
        {"spark.version": version},
    )
    import pyspark

    bundled = {_artifact(p.name) for p in (Path(pyspark.__file__).parent / "jars").glob("*.jar")}
    return sorted(str(p) for p in dest.glob("*.jar") if _artifact(p.name) not in bundled)


def _artifact(jar_name: str) -> str:
    """'scala-library-2.13.15.jar' -> 'scala-library'."""
    m = re.match(r"^(.*?)-(\d+\.[\w.\-]*)\.jar$", jar_name)
    return m.group(1) if m else jar_name
