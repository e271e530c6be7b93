"""Sends OpenLineage events through the real Python client (openlineage-python, HTTP transport).

Usage: openlineage_client_send.py <url> <api key> <none|gzip> <scenario>
Prints one JSON line per event: {"run_id": ..., "status": <HTTP status>}.
"""

import json
import sys
import uuid
from datetime import datetime, timezone

from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import column_lineage_dataset, error_message_run, schema_dataset, sql_job
from openlineage.client.transport.http import HttpConfig, HttpTransport

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


def client(url: str, key: str, compression: str) -> OpenLineageClient:
    config = {"url": url, "auth": {"type": "api_key", "apiKey": key}, "retry": {"total": 0}}
    if compression != "none":
        config["compression"] = compression
    return OpenLineageClient(transport=HttpTransport(HttpConfig.from_dict(config)))


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


def emit(c: OpenLineageClient, event: RunEvent) -> None:
    try:
        c.emit(event)
        status = 201
    except Exception as e:  # the transport raises requests' HTTPError on a refusal
        status = getattr(getattr(e, "response", None), "status_code", None) or repr(e)
    print(json.dumps({"run_id": event.run.runId, "status": status}), flush=True)


def load_customers(c: OpenLineageClient, job_name: str) -> None:
    """A Spark-style load: a landing file into the warehouse's raw_customers (START, then COMPLETE)."""
    run = Run(runId=str(uuid.uuid4()))
    landing = InputDataset(
        namespace="s3://landing",
        name="customers.csv",
        facets={"schema": schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields(name="cust_id", type="STRING")])},
    )
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "id": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField(
                        namespace="s3://landing",
                        name="customers.csv",
                        field="cust_id",
                        transformations=[column_lineage_dataset.Transformation(type="DIRECT", subtype="IDENTITY")],
                    )
                ]
            )
        }
    )
    target = OutputDataset(namespace="duckdb://jaffle_shop", name="jaffle_shop.raw.raw_customers", facets={"columnLineage": lineage})
    job = Job(namespace="spark://cluster-1", name=job_name, facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO raw_customers SELECT cust_id AS id FROM landing")})
    emit(c, RunEvent(eventType=RunState.START, eventTime=now(), run=run, job=job, producer=PRODUCER, inputs=[landing], outputs=[target]))
    emit(c, RunEvent(eventType=RunState.COMPLETE, eventTime=now(), run=run, job=job, producer=PRODUCER, inputs=[landing], outputs=[target]))


def failing(c: OpenLineageClient, job_name: str) -> None:
    run = Run(
        runId=str(uuid.uuid4()),
        facets={"errorMessage": error_message_run.ErrorMessageRunFacet(message="boom", programmingLanguage="PYTHON", stackTrace="Traceback: boom")},
    )
    job = Job(namespace="spark://cluster-1", name=job_name)
    emit(c, RunEvent(eventType=RunState.FAIL, eventTime=now(), run=run, job=job, producer=PRODUCER))


if __name__ == "__main__":
    url, key, compression, scenario, job_name = sys.argv[1:6]
    c = client(url, key, compression)
    {"load": load_customers, "fail": failing}[scenario](c, job_name)
