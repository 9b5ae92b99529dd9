<?php
// The plugin's units without WordPress: the few WordPress functions they call, stubbed.
define( 'ABSPATH', __DIR__ );
function __( $text, $domain = null ) { return $text; }
class WP_Error {
	public $code; public $message; public $data;
	public function __construct( $code = '', $message = '', $data = '' ) { $this->code = $code; $this->message = $message; $this->data = $data; }
	public function get_error_message() { return $this->message; }
	public function get_error_data() { return $this->data; }
}
require __DIR__ . '/../credence/includes/class-credence-signature.php';
require __DIR__ . '/../credence/includes/class-credence-client.php';
require __DIR__ . '/../credence/includes/class-credence-admin.php';
