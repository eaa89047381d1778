/** The s3 driver's options, apart from the driver so listing them does not load the AWS SDK. */
import type { OptionDescriptor } from './types.js';
import { HASH_ON_WRITE_OPTION } from './util.js';

export const S3_OPTIONS: readonly OptionDescriptor[] = [
  { name: 'root_folder_path', type: 'string', default: '/', required: true, help: 'Key prefix inside the bucket ("/" = the whole bucket).' },
  { name: 'bucket', type: 'string', default: '', required: true, help: 'Bucket name.' },
  { name: 'endpoint', type: 'string', default: '', required: false, help: 'S3 endpoint URL, e.g. https://s3.example.com (empty = AWS for the region).' },
  { name: 'region', type: 'string', default: '', required: false, help: 'Signing region; empty means us-east-1.' },
  { name: 'access_key_id', type: 'string', default: '', required: true, help: 'Access key.' },
  { name: 'secret_access_key', type: 'string', default: '', required: true, help: 'Secret key.' },
  { name: 'session_token', type: 'string', default: '', required: false, help: 'Session token for temporary credentials.' },
  { name: 'force_path_style', type: 'bool', default: false, required: false, help: 'Path-style addressing (endpoint/bucket/key); needed by most self-hosted servers.' },
  { name: 'list_object_version', type: 'select', default: 'v2', required: false, options: ['v1', 'v2'], help: 'ListObjects API version.' },
  { name: 'sign_url_expire', type: 'number', default: 4, required: false, help: 'Lifetime of presigned download links, in hours.' },
  { name: 'custom_host', type: 'string', default: '', required: false, help: 'Replaces scheme/host of download links (e.g. a CDN).' },
  { name: 'enable_custom_host_presign', type: 'bool', default: false, required: false, help: 'Presign links that use custom_host (otherwise they are unsigned).' },
  { name: 'add_filename_to_disposition', type: 'bool', default: false, required: false, help: 'Presigned links carry the full attachment; filename="…"; filename*=… form.' },
  { name: 'placeholder', type: 'string', default: '', required: false, help: 'Extra placeholder object written into new folders (e.g. .openlist); hidden in listings.' },
  { name: 'user_agent', type: 'string', default: '', required: false, help: 'Custom User-Agent on S3 calls.' },
  { name: 'upload_part_size', type: 'number', default: 8, required: false, help: 'Multipart part size in MiB (≥ 5). Smaller uploads are buffered and sent in one PUT.' },
  { name: 'upload_concurrency', type: 'number', default: 4, required: false, help: 'Parts uploaded in parallel per upload.' },
  { name: 'send_checksums', type: 'bool', default: true, required: false, help: 'Send x-amz-checksum-sha256 with single-part uploads so the server keeps it.' },  HASH_ON_WRITE_OPTION,
];
