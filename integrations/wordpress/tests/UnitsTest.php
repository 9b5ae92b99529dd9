<?php
use PHPUnit\Framework\TestCase;

final class UnitsTest extends TestCase {
	const SECRET = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

	public function test_a_delivery_signed_as_the_docs_say_is_accepted() {
		$body = '{"id":1,"event":"page.registered"}';
		$t    = '1795255200';
		$sig  = 'sha256=' . hash_hmac( 'sha256', $t . '.' . $body, self::SECRET );
		$this->assertSame( 'ok', Credence_Signature::check( self::SECRET, $body, $t, array( $sig, '' ), 1795255200 + 299 ) );
	}

	public function test_the_previous_secrets_signature_is_accepted_during_a_rotation() {
		$body = '{}';
		$t    = '1795255200';
		$old  = Credence_Signature::sign( self::SECRET, $body, $t );
		$this->assertSame( 'ok', Credence_Signature::check( self::SECRET, $body, $t, array( 'sha256=' . str_repeat( '0', 64 ), $old ), 1795255200 ) );
	}

	public function test_a_forged_or_altered_delivery_is_refused() {
		$t   = '1795255200';
		$sig = Credence_Signature::sign( self::SECRET, '{"a":1}', $t );
		$this->assertSame( 'bad', Credence_Signature::check( self::SECRET, '{"a":2}', $t, array( $sig ), 1795255200 ) );
		$this->assertSame( 'bad', Credence_Signature::check( 'whsec_other', '{"a":1}', $t, array( $sig ), 1795255200 ) );
		$this->assertSame( 'bad', Credence_Signature::check( self::SECRET, '{"a":1}', $t, array( substr( $sig, 7 ) ), 1795255200 ) );
		$this->assertSame( 'bad', Credence_Signature::check( '', '{"a":1}', $t, array( $sig ), 1795255200 ) );
		$this->assertSame( 'bad', Credence_Signature::check( self::SECRET, '{"a":1}', 'soon', array( $sig ), 1795255200 ) );
	}

	public function test_a_stale_delivery_is_refused_either_side_of_five_minutes() {
		$t   = '1795255200';
		$sig = Credence_Signature::sign( self::SECRET, 'x', $t );
		$this->assertSame( 'stale', Credence_Signature::check( self::SECRET, 'x', $t, array( $sig ), 1795255200 + 301 ) );
		$this->assertSame( 'stale', Credence_Signature::check( self::SECRET, 'x', $t, array( $sig ), 1795255200 - 301 ) );
	}

	public function test_errors_are_words_and_only_transient_ones_are_retried() {
		$e = Credence_Client::error_for( 401, array() );
		$this->assertStringContainsString( 'refused the API key', $e->get_error_message() );
		$this->assertFalse( $e->get_error_data()['retry'] );
		$this->assertTrue( Credence_Client::error_for( 503, array() )->get_error_data()['retry'] );
		$this->assertTrue( Credence_Client::error_for( 429, array() )->get_error_data()['retry'] );
		$e = Credence_Client::error_for( 400, array( 'error' => array( 'message' => 'authors.0: no account is called zed' ) ) );
		$this->assertStringContainsString( 'no account is called zed', $e->get_error_message() );
		$this->assertFalse( $e->get_error_data()['retry'] );
	}

	public function test_topic_map_lines_become_a_map_and_bad_lines_are_dropped() {
		$map = Credence_Admin::sanitize_topics( "category:health = Health\npost_tag:vaccines=vaccines\nnonsense\ncategory:x = not a topic" );
		$this->assertSame( array( 'category:health' => 'health', 'post_tag:vaccines' => 'vaccines' ), $map );
	}
}
