"""Workers say they are alive (``WorkerHeartbeat``): a task is taken back only from a silent one."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('dumps', '0013_pages_kept_as_bytes'),
    ]

    operations = [
        migrations.CreateModel(
            name='WorkerHeartbeat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('worker_id', models.CharField(max_length=64, unique=True)),
                ('started_at', models.DateTimeField()),
                ('beat_at', models.DateTimeField()),
                ('stopped_at', models.DateTimeField(blank=True, null=True)),
                ('queues', models.CharField(blank=True, max_length=255)),
            ],
            options={
                'ordering': ['worker_id'],
            },
        ),
    ]
